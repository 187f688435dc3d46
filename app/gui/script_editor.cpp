#include "app/gui/script_editor.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QMimeData>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

#include "app/gui/python_highlighter.h"

namespace fuserlab::gui {
namespace {

class LineNumberArea : public QWidget {
 public:
  explicit LineNumberArea(ScriptEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->lineNumberAreaWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { editor_->paintLineNumbers(event); }

 private:
  ScriptEditor* editor_;
};

}  // namespace

ScriptEditor::ScriptEditor(QWidget* parent)
    : QPlainTextEdit(parent),
      lineNumbers_(new LineNumberArea(this)),
      highlighter_(new PythonHighlighter(document(), palette())) {
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  connect(this, &QPlainTextEdit::blockCountChanged, this,
          [this] { setViewportMargins(lineNumberAreaWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy) {
      lineNumbers_->scroll(0, dy);
    } else {
      lineNumbers_->update(0, rect.y(), lineNumbers_->width(), rect.height());
    }
  });
  setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

int ScriptEditor::lineNumberAreaWidth() const {
  int digits = 1;
  for (int n = qMax(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 12 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * qMax(3, digits);
}

void ScriptEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect area = contentsRect();
  lineNumbers_->setGeometry(area.left(), area.top(), lineNumberAreaWidth(), area.height());
}

void ScriptEditor::paintLineNumbers(QPaintEvent* event) {
  QPainter painter(lineNumbers_);
  // The gutter in the palette's colours: a fixed light grey stayed light
  // under a dark palette.
  painter.fillRect(event->rect(), palette().color(QPalette::Window));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= event->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    const int line = block.blockNumber() + 1;
    if (block.isVisible()) {
      if (line == errorLine_) {
        painter.fillRect(0, top, lineNumbers_->width(), height, QColor(220, 60, 60));
        painter.setPen(Qt::white);
      } else {
        painter.setPen(palette().color(QPalette::PlaceholderText));
      }
      painter.drawText(0, top, lineNumbers_->width() - 6, height, Qt::AlignRight,
                       QString::number(line));
    }
    block = block.next();
    top += height;
  }
}

void ScriptEditor::setErrorMarker(int line, int column, const QString& message) {
  errorLine_ = line;
  errorColumn_ = column;
  errorMessage_ = message;
  updateMarker();
}

void ScriptEditor::clearErrorMarker() {
  errorLine_ = errorColumn_ = 0;
  errorMessage_.clear();
  updateMarker();
}

void ScriptEditor::updateMarker() {
  QList<QTextEdit::ExtraSelection> selections;
  const QTextBlock block = document()->findBlockByNumber(errorLine_ - 1);
  if (errorLine_ > 0 && block.isValid()) {
    QTextEdit::ExtraSelection line;
    line.format.setBackground(errorLineBackground());
    line.format.setProperty(QTextFormat::FullWidthSelection, true);
    line.cursor = QTextCursor(block);
    selections << line;
    QTextEdit::ExtraSelection underline;
    underline.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    underline.format.setUnderlineColor(Qt::red);
    QTextCursor cursor(block);
    const int column = qBound(0, errorColumn_ - 1, qMax(0, block.length() - 2));
    cursor.setPosition(block.position() + column);
    cursor.setPosition(block.position() + qMax(column + 1, block.length() - 1),
                       QTextCursor::KeepAnchor);
    underline.cursor = cursor;
    selections << underline;
  }
  setExtraSelections(selections);
  lineNumbers_->update();
}

QColor ScriptEditor::errorLineBackground() const {
  const QColor base = palette().color(QPalette::Base);
  return base.lightness() < 128 ? QColor(95, 30, 30) : QColor(255, 225, 225);
}

void ScriptEditor::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    highlighter_->setPalette(palette());
    updateMarker();
  }
}

bool ScriptEditor::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && errorLine_ > 0) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QTextCursor cursor = cursorForPosition(viewport()->mapFrom(this, help->pos()));
    if (cursor.blockNumber() + 1 == errorLine_) {
      QToolTip::showText(help->globalPos(), errorMessage_, this);
      return true;
    }
  }
  return QPlainTextEdit::event(event);
}

void ScriptEditor::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) {
    event->acceptProposedAction();
    return;
  }
  QPlainTextEdit::dragEnterEvent(event);
}

void ScriptEditor::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasUrls()) {
    event->acceptProposedAction();
    return;
  }
  QPlainTextEdit::dragMoveEvent(event);
}

void ScriptEditor::dropEvent(QDropEvent* event) {
  if (event->mimeData()->hasUrls()) {
    for (const QUrl& url : event->mimeData()->urls()) {
      if (url.isLocalFile()) {
        emit fileDropped(url.toLocalFile());
        break;
      }
    }
    event->acceptProposedAction();
    return;
  }
  QPlainTextEdit::dropEvent(event);
}

}  // namespace fuserlab::gui
