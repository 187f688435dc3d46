// ScriptEditor: the script's text with line numbers, syntax colours and an
// error marker: the line the reader complained about gets a tinted
// background and a wavy underline from the error's column, with the message
// as the line number's tool tip. Dropping a file on it asks to open the file
// (fileDropped) instead of inserting its path.
#pragma once

#include <QPlainTextEdit>

namespace fuserlab::gui {

class PythonHighlighter;

class ScriptEditor : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit ScriptEditor(QWidget* parent = nullptr);

  //! Marks `line`:`column` (1-based) with `message`; clears the old marker.
  void setErrorMarker(int line, int column, const QString& message);
  void clearErrorMarker();
  //! The marked line (1-based), 0 if none.
  int errorLine() const { return errorLine_; }
  int errorColumn() const { return errorColumn_; }

  //! The syntax colours (they follow the palette, dark ones included).
  PythonHighlighter* highlighter() const { return highlighter_; }
  //! The error line's tint: light on a light palette, dark on a dark one.
  QColor errorLineBackground() const;

  int lineNumberAreaWidth() const;
  void paintLineNumbers(QPaintEvent* event);

 signals:
  void fileDropped(const QString& path);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool event(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void updateMarker();

  QWidget* lineNumbers_;
  PythonHighlighter* highlighter_;
  int errorLine_ = 0;
  int errorColumn_ = 0;
  QString errorMessage_;
};

}  // namespace fuserlab::gui
