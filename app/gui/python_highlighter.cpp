#include "app/gui/python_highlighter.h"

#include <cmath>

namespace fuserlab::gui {
namespace {

double relativeLuminance(const QColor& colour) {
  const auto channel = [](double c) {
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) +
         0.0722 * channel(colour.blueF());
}

}  // namespace

double contrastRatio(const QColor& a, const QColor& b) {
  const double la = relativeLuminance(a);
  const double lb = relativeLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor& colour, const QColor& background, double minimum) {
  const bool darkBackground = relativeLuminance(background) < 0.2;
  QColor result = colour;
  // On a dark background the hue's mirror image in lightness starts closer.
  if (darkBackground && colour.lightness() < 128) {
    result = QColor::fromHsl(colour.hslHue(), colour.hslSaturation(), 255 - colour.lightness());
  }
  for (int step = 0; step < 64 && contrastRatio(result, background) < minimum; ++step) {
    const int lightness = result.lightness() + (darkBackground ? 6 : -6);
    if (lightness < 0 || lightness > 255) break;
    result = QColor::fromHsl(result.hslHue(), result.hslSaturation(), lightness);
  }
  return result;
}

PythonHighlighter::PythonHighlighter(QTextDocument* document, const QPalette& palette)
    : QSyntaxHighlighter(document) {
  // Later rules win where they overlap: strings and comments come last.
  rules_.push_back(
      {QRegularExpression(
           R"(\b(def|class|with|as|import|from|return|None|True|False|for|while|in|is|not|and|or|if|elif|else|lambda|assert|raise|break|continue|pass)\b)"),
       QColor(0, 0, 160),
       true,
       false,
       {}});
  rules_.push_back(
      {QRegularExpression(R"(\bfd\.(ops\.)?\w+)"), QColor(0, 110, 110), false, false, {}});
  rules_.push_back({QRegularExpression(R"(\bDataType\.\w+|\btorch\.\w+|@[\w.]+)"),
                    QColor(130, 60, 0),
                    false,
                    false,
                    {}});
  rules_.push_back(
      {QRegularExpression(R"(\b(?:[TSV]|tv|c)\d+\b)"), QColor(90, 0, 130), false, false, {}});
  rules_.push_back({QRegularExpression(R"(\b-?\d+(\.\d*)?([eE][-+]?\d+)?\b)"),
                    QColor(150, 75, 0),
                    false,
                    false,
                    {}});
  rules_.push_back({QRegularExpression(R"('[^']*'|"[^"]*")"), QColor(0, 120, 0), false, false, {}});
  rules_.push_back({QRegularExpression(R"(#.*$)"), QColor(110, 110, 110), false, true, {}});
  setPalette(palette);
}

void PythonHighlighter::setPalette(const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base);
  for (Rule& rule : rules_) {
    QTextCharFormat format;
    format.setForeground(readableOn(rule.hue, base, kMinimumContrast));
    if (rule.bold) format.setFontWeight(QFont::Bold);
    format.setFontItalic(rule.italic);
    rule.format = format;
  }
  rehighlight();
}

std::vector<QTextCharFormat> PythonHighlighter::formats() const {
  std::vector<QTextCharFormat> out;
  for (const Rule& rule : rules_) out.push_back(rule.format);
  return out;
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
