// PythonHighlighter: syntax colours for the FusionDefinition dialect:
// keywords, `fd.ops.*` and `fd.define_*` calls, DataType names, numbers,
// strings and comments. Line-local rules only (the dialect has no
// multi-line strings worth colouring). The colours follow the editor's
// palette: each is a hue the rule keeps, made light or dark enough for a
// contrast of at least kMinimumContrast against the palette's base (a dark
// palette gets light colours), and recomputed when the palette changes.
#pragma once

#include <QPalette>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace fuserlab::gui {

class PythonHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  //! WCAG's contrast for body text (AA).
  static constexpr double kMinimumContrast = 4.5;

  PythonHighlighter(QTextDocument* document, const QPalette& palette);

  //! Recolours every rule for `palette` and highlights the document again.
  void setPalette(const QPalette& palette);
  //! Each rule's format, in rule order.
  std::vector<QTextCharFormat> formats() const;

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QColor hue;  //!< the colour on a white background
    bool bold = false;
    bool italic = false;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
};

//! WCAG 2's contrast ratio of two colours (1 to 21).
double contrastRatio(const QColor& a, const QColor& b);
//! `colour`'s hue made lighter or darker until its contrast with
//! `background` is at least `minimum` (or as far as it goes).
QColor readableOn(const QColor& colour, const QColor& background, double minimum);

}  // namespace fuserlab::gui
