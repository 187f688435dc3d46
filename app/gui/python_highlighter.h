// PythonHighlighter: syntax colours for the FusionDefinition dialect:
// keywords, `fd.ops.*` and `fd.define_*` calls, DataType names, numbers,
// strings and comments. Line-local rules only (the dialect has no
// multi-line strings worth colouring).
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace fuserlab::gui {

class PythonHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit PythonHighlighter(QTextDocument* document);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
};

}  // namespace fuserlab::gui
