// DatabasePanel: the heuristics database browser: open a file, list its
// entries (all, or only those keyed by a segment of the current fusion),
// their measurements, delete the selected ones, export them as the CLI's
// JSON lines, and use the file's params when compiling.
#pragma once

#include <functional>

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace fuserlab::gui {

class DatabasePanel : public QWidget {
  Q_OBJECT
 public:
  explicit DatabasePanel(QWidget* parent = nullptr);

  //! Opens (and lists) `path`; an error is shown in the panel.
  void openDatabase(const QString& path);
  QString path() const;
  //! Whether compiling should take params from this file.
  bool useForCompiling() const;
  void setUseForCompiling(bool use);
  //! The structure hashes of the current fusion's segments (the filter).
  void setCurrentSegments(const QStringList& structureHashes);
  QTableWidget* table() const { return table_; }
  //! Asked before Delete removes entries (the question names how many and
  //! the file); true deletes. A dialog unless a test sets its own.
  void setDeleteConfirmation(std::function<bool(const QString& question)> confirm);
  QPushButton* deleteButton() const { return delete_; }

 public slots:
  void refresh();
  //! Removes the selected entries without asking.
  void deleteSelected();
  //! Asks (setDeleteConfirmation), then deletes; what the Delete button does.
  void confirmAndDeleteSelected();
  //! Writes the selected entries (all listed ones when none is selected) as
  //! JSON lines to `file` (asked for when empty); false, with the reason in
  //! the panel's status, if not written.
  bool exportSelected(const QString& file = {});

 signals:
  //! The file or the "use for compiling" switch changed.
  void databaseChanged();

 private:
  QLineEdit* path_;
  QCheckBox* onlyCurrent_;
  QCheckBox* use_;
  QLabel* status_;
  QTableWidget* table_;
  QStringList currentHashes_;
  QPushButton* delete_ = nullptr;
  std::function<bool(const QString&)> confirmDelete_;
};

}  // namespace fuserlab::gui
