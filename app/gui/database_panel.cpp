#include "app/gui/database_panel.h"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/ir/output_file.h"
#include "db/heuristics_database.h"
#include "db/transaction.h"

namespace fuserlab::gui {

DatabasePanel::DatabasePanel(QWidget* parent)
    : QWidget(parent),
      path_(new QLineEdit(this)),
      onlyCurrent_(new QCheckBox("only this fusion's segments", this)),
      use_(new QCheckBox("use for compiling", this)),
      status_(new QLabel("no database open", this)),
      table_(new QTableWidget(this)) {
  path_->setObjectName("databasePath");
  status_->setObjectName("databaseStatus");
  path_->setPlaceholderText("heuristics database file (.db)");
  onlyCurrent_->setChecked(true);
  table_->setObjectName("databaseEntries");
  table_->setColumnCount(7);
  table_->setHorizontalHeaderLabels(
      {"id", "scheduler", "sizes", "device", "origin", "measurement", "params"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  status_->setWordWrap(true);

  auto* browse = new QPushButton("Open...", this);
  auto* remove = new QPushButton("Delete", this);
  delete_ = remove;
  confirmDelete_ = [this](const QString& question) {
    return QMessageBox::question(this, "Delete entries", question,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
  };
  auto* exportButton = new QPushButton("Export...", this);
  auto* row = new QHBoxLayout;
  row->addWidget(path_, 1);
  row->addWidget(browse);
  // Switches and buttons in rows of their own: the panel fits a narrow window.
  auto* switches = new QHBoxLayout;
  switches->addWidget(onlyCurrent_);
  switches->addWidget(use_);
  switches->addStretch();
  auto* actions = new QHBoxLayout;
  actions->addStretch();
  actions->addWidget(remove);
  actions->addWidget(exportButton);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addLayout(switches);
  layout->addLayout(actions);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);

  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, "Heuristics database", {},
                                                      "SQLite (*.db *.sqlite);;All (*)");
    if (!file.isEmpty()) openDatabase(file);
  });
  connect(path_, &QLineEdit::editingFinished, this, [this] {
    refresh();
    emit databaseChanged();
  });
  connect(onlyCurrent_, &QCheckBox::toggled, this, &DatabasePanel::refresh);
  connect(use_, &QCheckBox::toggled, this, &DatabasePanel::databaseChanged);
  connect(remove, &QPushButton::clicked, this, &DatabasePanel::confirmAndDeleteSelected);
  connect(exportButton, &QPushButton::clicked, this, [this] { exportSelected(); });
}

void DatabasePanel::openDatabase(const QString& path) {
  path_->setText(path);
  refresh();
  emit databaseChanged();
}

QString DatabasePanel::path() const { return path_->text().trimmed(); }

bool DatabasePanel::useForCompiling() const {
  return use_->isChecked() && !path().isEmpty() && QFileInfo::exists(path());
}

void DatabasePanel::setUseForCompiling(bool use) { use_->setChecked(use); }

void DatabasePanel::setCurrentSegments(const QStringList& structureHashes) {
  currentHashes_ = structureHashes;
  refresh();
}

void DatabasePanel::refresh() {
  table_->setRowCount(0);
  if (path().isEmpty()) {
    status_->setText("no database open");
    return;
  }
  if (!QFileInfo::exists(path())) {
    status_->setText("no such file: " + path());
    return;
  }
  try {
    db::HeuristicsDatabase database(path().toStdString(), db::HeuristicsDatabase::Access::Read);
    int shown = 0, total = 0;
    for (const db::Entry& entry : database.entries()) {
      ++total;
      const QString hash = QString::fromStdString(entry.segment.structureHash);
      if (onlyCurrent_->isChecked() && !currentHashes_.contains(hash)) continue;
      const int row = table_->rowCount();
      table_->insertRow(row);
      const QStringList cells = {QString::number(entry.id),
                                 QString::fromStdString(entry.segment.scheduler),
                                 QString::fromStdString(entry.segment.sizes),
                                 QString::fromStdString(entry.device.key),
                                 QString::fromStdString(entry.origin),
                                 QString::fromStdString(db::measurementSummary(entry.measurement)),
                                 QString::fromStdString(entry.params.dump(-1))};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setToolTip(c == 6 ? cells[c] : QString::fromStdString(entry.summary()));
        item->setData(Qt::UserRole, QVariant::fromValue<qlonglong>(entry.id));
        table_->setItem(row, c, item);
      }
      ++shown;
    }
    status_->setText(QString("%1: %2 entries, %3 shown%4")
                         .arg(QFileInfo(path()).fileName())
                         .arg(total)
                         .arg(shown)
                         .arg(onlyCurrent_->isChecked() ? " (this fusion's segments)" : ""));
  } catch (const std::exception& error) {
    status_->setText("cannot read the database: " + QString::fromUtf8(error.what()));
  }
}

namespace {

QList<qint64> selectedIds(QTableWidget* table) {
  QList<qint64> ids;
  for (const QModelIndex& index : table->selectionModel()->selectedRows()) {
    ids << table->item(index.row(), 0)->data(Qt::UserRole).toLongLong();
  }
  return ids;
}

}  // namespace

void DatabasePanel::setDeleteConfirmation(std::function<bool(const QString&)> confirm) {
  confirmDelete_ = std::move(confirm);
}

void DatabasePanel::confirmAndDeleteSelected() {
  const QList<qint64> ids = selectedIds(table_);
  if (ids.isEmpty()) return;
  const QString question = QString(
                               "Delete %1 %2 from %3? This cannot be undone (db export "
                               "keeps a copy).")
                               .arg(ids.size())
                               .arg(ids.size() == 1 ? "entry" : "entries", path());
  if (confirmDelete_ && !confirmDelete_(question)) {
    status_->setText("nothing deleted");
    return;
  }
  deleteSelected();
}

void DatabasePanel::deleteSelected() {
  const QList<qint64> ids = selectedIds(table_);
  if (ids.isEmpty()) return;
  try {
    db::HeuristicsDatabase database(path().toStdString(), db::HeuristicsDatabase::Access::Write);
    db::Transaction transaction(database.connection());
    for (qint64 id : ids) database.remove(id);
    transaction.commit();
  } catch (const std::exception& error) {
    status_->setText("cannot delete: " + QString::fromUtf8(error.what()));
    return;
  }
  refresh();
  emit databaseChanged();
}

bool DatabasePanel::exportSelected(const QString& file) {
  QList<qint64> ids = selectedIds(table_);
  if (ids.isEmpty()) {
    for (int row = 0; row < table_->rowCount(); ++row) {
      ids << table_->item(row, 0)->data(Qt::UserRole).toLongLong();
    }
  }
  const QString target = file.isEmpty()
                             ? QFileDialog::getSaveFileName(this, "Export entries", "entries.jsonl",
                                                            "JSON lines (*.jsonl)")
                             : file;
  if (target.isEmpty()) return false;
  try {
    db::HeuristicsDatabase database(path().toStdString(), db::HeuristicsDatabase::Access::Read);
    std::string lines;
    int exported = 0;
    for (qint64 id : ids) {
      if (auto entry = database.entry(id)) {
        lines += entry->toJson().dump(-1) + "\n";
        ++exported;
      }
    }
    // Checked to the close: a full disk or a pipe nobody reads is an error
    // shown here, never "exported".
    ir::writeUserFile(QFile::encodeName(target).toStdString(), lines);
    status_->setText(QString("exported %1 entries to %2").arg(exported).arg(target));
    return true;
  } catch (const std::exception& error) {
    status_->setText("cannot export: " + QString::fromUtf8(error.what()));
    return false;
  }
}

}  // namespace fuserlab::gui
