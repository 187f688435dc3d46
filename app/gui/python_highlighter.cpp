#include "app/gui/python_highlighter.h"

namespace fuserlab::gui {
namespace {

QTextCharFormat makeFormat(const QColor& color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}

}  // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  // Later rules win where they overlap: strings and comments come last.
  rules_.push_back(
      {QRegularExpression(
           R"(\b(def|class|with|as|import|from|return|None|True|False|for|while|in|is|not|and|or|if|elif|else|lambda|assert|raise|break|continue|pass)\b)"),
       makeFormat(QColor(0, 0, 160), true)});
  rules_.push_back({QRegularExpression(R"(\bfd\.(ops\.)?\w+)"), makeFormat(QColor(0, 110, 110))});
  rules_.push_back({QRegularExpression(R"(\bDataType\.\w+|\btorch\.\w+|@[\w.]+)"),
                    makeFormat(QColor(130, 60, 0))});
  rules_.push_back(
      {QRegularExpression(R"(\b(?:[TSV]|tv|c)\d+\b)"), makeFormat(QColor(90, 0, 130))});
  rules_.push_back(
      {QRegularExpression(R"(\b-?\d+(\.\d*)?([eE][-+]?\d+)?\b)"), makeFormat(QColor(160, 80, 0))});
  rules_.push_back({QRegularExpression(R"('[^']*'|"[^"]*")"), makeFormat(QColor(0, 120, 0))});
  rules_.push_back({QRegularExpression(R"(#.*$)"), makeFormat(QColor(120, 120, 120), false, true)});
}

void PythonHighlighter::highlightBlock(const QString& text) {
  for (const Rule& rule : rules_) {
    for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
      const auto match = it.next();
      setFormat(match.capturedStart(), match.capturedLength(), rule.format);
    }
  }
}

}  // namespace fuserlab::gui
