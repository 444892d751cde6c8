#pragma once
// Helpers shared by the GUI tests (tst_gui, tst_gui_suggest): synthetic text and files.
#include <QFile>
#include <QRandomGenerator>
#include <QString>

namespace gb::test {

// The shape of makeText's sentences: how many per paragraph (drawn between the two bounds)
// and whether each starts with a capital.
struct TextShape {
  int minSentences = 2;
  int maxSentences = 4;
  bool capitalise = true;
};

// `paragraphs` paragraphs of sentences of 5 to 12 words drawn from `words` (seeded), each
// paragraph followed by a blank line.
inline QString makeText(const char* const* words, int nWords, quint32 seed, int paragraphs,
                        TextShape shape = {}) {
  QRandomGenerator rng(seed);
  QString out;
  for (int p = 0; p < paragraphs; ++p) {
    const int sentences =
        shape.minSentences + (shape.maxSentences > shape.minSentences
                                  ? int(rng.bounded(shape.maxSentences - shape.minSentences + 1))
                                  : 0);
    for (int s = 0; s < sentences; ++s) {
      const int len = 5 + rng.bounded(8);
      QString sentence;
      for (int w = 0; w < len; ++w) {
        if (w) sentence += u' ';
        sentence += QString::fromUtf8(words[rng.bounded(nWords)]);
      }
      if (shape.capitalise) sentence[0] = sentence[0].toUpper();
      out += sentence + QStringLiteral(". ");
    }
    out += QStringLiteral("\n\n");
  }
  return out;
}

// Writes `data` to `path` (replacing it); false when it cannot.
inline bool writeFile(const QString& path, const QByteArray& data) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(data) == data.size();
}

}  // namespace gb::test
