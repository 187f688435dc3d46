#include "app/gui/options_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "core/passes/pipeline.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::gui {

OptionsPanel::OptionsPanel(QWidget* parent, bool compact)
    : QWidget(parent),
      device_(new QComboBox(this)),
      upcast_(new QComboBox(this)),
      bookend_(new QComboBox(this)),
      inputs_(new QLineEdit(this)) {
  device_->setObjectName("device");
  upcast_->setObjectName("upcast");
  bookend_->setObjectName("bookend");
  inputs_->setObjectName("inputs");
  for (const std::string& key : availableDevices()) {
    QString label = QString::fromStdString(key);
    if (auto spec = scheduler::findBuiltinDevice(key)) {
      device_->addItem(label + "  (" + QString::fromStdString(spec->name) + ")", label);
    } else {
      device_->addItem(label + "  (this machine)", label);
    }
  }
  device_->setCurrentIndex(
      device_->findData(QString::fromStdString(scheduler::defaultDevice().key)));
  for (const char* value : {"privatize", "forward"}) upcast_->addItem(value, value);
  for (const char* value : {"none", "outputs", "inputs_and_outputs"}) {
    bookend_->addItem(value, value);
  }
  bookend_->setCurrentIndex(1);
  inputs_->setPlaceholderText("from the script (e.g. 128x1024:bf16,1024:bf16)");
  upcast_->setToolTip(
      "privatize: clone multi-use upcasts per use (seed 000)\n"
      "forward: nvFuser's input forwarding");
  bookend_->setToolTip("which meta ops become kernel-free segments (seed 001)");

  auto emitChanged = [this] {
    if (!quiet_) emit settingsChanged();
  };
  connect(device_, &QComboBox::currentIndexChanged, this, emitChanged);
  connect(upcast_, &QComboBox::currentIndexChanged, this, emitChanged);
  connect(bookend_, &QComboBox::currentIndexChanged, this, emitChanged);
  connect(inputs_, &QLineEdit::editingFinished, this, emitChanged);

  QBoxLayout* passRow = compact ? static_cast<QBoxLayout*>(new QHBoxLayout)
                                : static_cast<QBoxLayout*>(new QVBoxLayout);
  for (const auto& pass : passes::allPasses()) {
    const QString name = QString::fromStdString(std::string(pass->name()));
    auto* box = new QCheckBox(name, this);
    box->setObjectName("pass:" + name);
    box->setChecked(true);
    box->setToolTip(QString::fromStdString(std::string(pass->description())));
    connect(box, &QCheckBox::toggled, this, emitChanged);
    passRow->addWidget(box);
    passes_[name] = box;
  }

  // The one rewrite that needs the sizes, on by default as in the CLI.
  refine_ = new QCheckBox("refine_reshaped_reductions", this);
  refine_->setObjectName("refine_reshaped_reductions");
  refine_->setChecked(true);
  refine_->setToolTip(
      "on by default: reductions over axes a reshape merged (GroupNorm's [N, C, H, W] -> "
      "[N, G, rest]) computed over the finer axes, so one kernel reads x once");
  connect(refine_, &QCheckBox::toggled, this, emitChanged);
  passRow->addWidget(refine_);

  // The device names are long ("h100  (NVIDIA H100 80GB HBM3)"): the box
  // shows what fits and its list the whole names.
  device_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  device_->setMinimumContentsLength(8);
  if (compact) {
    auto* row = new QGridLayout(this);
    row->setContentsMargins(2, 2, 2, 2);
    row->addWidget(new QLabel("device", this), 0, 0);
    row->addWidget(device_, 0, 1, 1, 3);
    row->addWidget(new QLabel("upcast", this), 1, 0);
    row->addWidget(upcast_, 1, 1);
    row->addWidget(new QLabel("bookend", this), 1, 2);
    row->addWidget(bookend_, 1, 3);
    row->setColumnStretch(4, 1);
    delete passRow;  // the compare view shows device and strategy only
    for (auto& [name, box] : passes_) box->hide();
    refine_->hide();
    inputs_->hide();
    return;
  }
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  form->addRow("Device", device_);
  form->addRow("Upcast", upcast_);
  form->addRow("Bookend", bookend_);
  form->addRow("Inputs", inputs_);
  layout->addLayout(form);
  auto* group = new QGroupBox("Passes", this);
  group->setLayout(passRow);
  layout->addWidget(group);
  layout->addStretch();
}

void OptionsPanel::setInputs(const QString& inputs) {
  quiet_ = true;
  inputs_->setText(inputs);
  quiet_ = false;
}

QCheckBox* OptionsPanel::passBox(const QString& pass) const {
  auto it = passes_.find(pass);
  return it == passes_.end() ? nullptr : it->second;
}

CompileSettings OptionsPanel::settings() const {
  CompileSettings settings = base_;
  settings.device = device_->currentData().toString().toStdString();
  settings.options = {};
  settings.options.set("upcast", upcast_->currentData().toString().toStdString());
  settings.options.set("bookend", bookend_->currentData().toString().toStdString());
  for (const auto& [name, box] : passes_) {
    if (!box->isChecked()) settings.options.disablePass(name.toStdString());
  }
  settings.options.refineReshapedReductions = refine_->isChecked();
  settings.inputs = inputs_->text().trimmed().toStdString();
  return settings;
}

void OptionsPanel::setSettings(const CompileSettings& settings) {
  quiet_ = true;
  base_ = settings;
  const QString device = QString::fromStdString(
      settings.device.empty() ? scheduler::defaultDevice().key : settings.device);
  int index = device_->findData(device);
  if (index < 0) {
    device_->addItem(device, device);
    index = device_->count() - 1;
  }
  device_->setCurrentIndex(index);
  upcast_->setCurrentIndex(upcast_->findData(
      QString::fromStdString(std::string(segmenter::toString(settings.options.upcast)))));
  bookend_->setCurrentIndex(bookend_->findData(
      QString::fromStdString(std::string(passes::toString(settings.options.bookend)))));
  for (auto& [name, box] : passes_) {
    box->setChecked(settings.options.passEnabled(name.toStdString()));
  }
  refine_->setChecked(settings.options.refineReshapedReductions);
  inputs_->setText(QString::fromStdString(settings.inputs));
  quiet_ = false;
}

}  // namespace fuserlab::gui
