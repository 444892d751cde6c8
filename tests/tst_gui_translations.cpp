// Translations of the GUI (translations/*.ts, compiled to .qm by the build): every message
// of every .ts file is translated, with its placeholders, accelerators, HTML tags and plural
// forms intact; the .ts files cover every tr() string of widgets/ and app/gui/ and the GB_TR
// strings of the variant registry in core/grow/ and the layer-policy registry in
// core/importance/ (lupdate finds nothing new); the .qm files in the build folder load the way the
// GUI loads them and translate known strings; the settings dialog offers exactly the shipped
// languages; and the real main window comes up translated.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QMenuBar>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

#include "dialogs.h"
#include "mainwindow.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;

namespace {

struct TsMessage {
  QString context, source, comment, type;
  bool numerus = false;
  QStringList forms;  // the translation, or its plural forms
  QString key() const { return context + u'\x1f' + source + u'\x1f' + comment; }
};

struct TsFile {
  QString language;
  QList<TsMessage> messages;
  QString error;
};

TsFile parseTs(const QByteArray& xml) {
  TsFile ts;
  QXmlStreamReader r(xml);
  QString context;
  TsMessage m;
  bool inMessage = false;
  while (!r.atEnd()) {
    r.readNext();
    if (r.isStartElement()) {
      const auto name = r.name();
      if (name == u"TS") {
        ts.language = r.attributes().value(u"language"_s).toString();
      } else if (name == u"name" && !inMessage) {
        context = r.readElementText();
      } else if (name == u"message") {
        m = TsMessage{};
        m.context = context;
        m.numerus = r.attributes().value(u"numerus"_s) == u"yes";
        inMessage = true;
      } else if (name == u"source" && inMessage) {
        m.source = r.readElementText();
      } else if (name == u"comment" && inMessage) {
        m.comment = r.readElementText();
      } else if (name == u"translation" && inMessage) {
        m.type = r.attributes().value(u"type"_s).toString();
        if (!m.numerus) m.forms << r.readElementText(QXmlStreamReader::IncludeChildElements);
      } else if (name == u"numerusform" && inMessage) {
        m.forms << r.readElementText();
      }
    } else if (r.isEndElement() && r.name() == u"message") {
      ts.messages << m;
      inMessage = false;
    }
  }
  if (r.hasError()) ts.error = r.errorString();
  return ts;
}

QStringList placeholders(const QString& s) {
  static const QRegularExpression re(u"%(?:n|L?[0-9]+)"_s);
  QStringList out;
  for (auto it = re.globalMatch(s); it.hasNext();) out << it.next().captured();
  out.sort();
  return out;
}

int accelerators(QString s) {
  s.remove(u"&&"_s);
  static const QRegularExpression entity(u"&[#a-zA-Z0-9]+;"_s);
  s.remove(entity);
  return static_cast<int>(s.count(u'&'));
}

QStringList htmlTags(const QString& s) {
  static const QRegularExpression re(u"</?[a-zA-Z][^>]*>"_s);
  QStringList out;
  for (auto it = re.globalMatch(s); it.hasNext();) out << it.next().captured();
  return out;
}

// Everything wrong with a parsed .ts file; empty when it is complete and consistent.
QStringList problems(const TsFile& ts, int pluralForms) {
  QStringList out;
  if (!ts.error.isEmpty()) out << u"XML: "_s + ts.error;
  if (ts.messages.isEmpty()) out << u"no messages"_s;
  for (const TsMessage& m : ts.messages) {
    const QString where = u"[%1] \"%2\": "_s.arg(m.context, m.source.left(60));
    if (!m.type.isEmpty()) out << where + m.type;
    if (m.numerus && m.forms.size() != pluralForms) {
      out << where + u"%1 plural forms, expected %2"_s.arg(m.forms.size()).arg(pluralForms);
    }
    if (m.forms.isEmpty()) out << where + u"no translation"_s;
    for (const QString& f : m.forms) {
      if (f.trimmed().isEmpty()) out << where + u"empty translation"_s;
      if (placeholders(f) != placeholders(m.source)) out << where + u"placeholders differ"_s;
      if (accelerators(f) != accelerators(m.source)) out << where + u"accelerators differ"_s;
      if (htmlTags(f) != htmlTags(m.source)) out << where + u"HTML tags differ"_s;
      if (f.count(u'\n') != m.source.count(u'\n')) out << where + u"line breaks differ"_s;
    }
  }
  return out;
}

QString tsPath(const QString& lang) {
  return QStringLiteral(GB_SOURCE_DIR) + u"/translations/growbench_%1.ts"_s.arg(lang);
}

QString qmDir() {
  return QStringLiteral(GB_BINARY_DIR) + u"/translations"_s;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int pluralFormsOf(const QString& lang) {
  return lang.startsWith(u"zh"_s) ? 1 : 2;
}

const QStringList kLanguages = {u"de"_s, u"zh_CN"_s};

// Installs the translation the way the GUI's main() does: growbench_<locale>.qm found
// through QTranslator's locale fallbacks.
class ScopedTranslator {
 public:
  explicit ScopedTranslator(const QString& locale) {
    m_ok = m_tr.load(QLocale(locale), u"growbench"_s, u"_"_s, qmDir());
    if (m_ok) QCoreApplication::installTranslator(&m_tr);
  }
  ~ScopedTranslator() {
    if (m_ok) QCoreApplication::removeTranslator(&m_tr);
  }
  bool ok() const { return m_ok; }
  QString file() const { return m_tr.filePath(); }
  const QTranslator& translator() const { return m_tr; }

 private:
  QTranslator m_tr;
  bool m_ok = false;
};

}  // namespace

class TstGuiTranslations : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    Q_INIT_RESOURCE(growbench);
    QStandardPaths::setTestModeEnabled(true);
    qputenv("GROWBENCH_CLI", GB_CLI_PATH);
  }

  void tsFileIsComplete_data() {
    QTest::addColumn<QString>("lang");
    for (const QString& l : kLanguages) QTest::newRow(qPrintable(l)) << l;
  }
  void tsFileIsComplete() {
    QFETCH(QString, lang);
    const TsFile ts = parseTs(readAll(tsPath(lang)));
    QCOMPARE(ts.language.left(2), lang.left(2));
    QVERIFY2(ts.messages.size() >= 100, qPrintable(tsPath(lang)));
    const QStringList p = problems(ts, pluralFormsOf(lang));
    QVERIFY2(p.isEmpty(),
             qPrintable(u"%1 problems, e.g.:\n"_s.arg(p.size()) + p.mid(0, 20).join(u'\n')));
  }

  void tsFilesHoldTheSameMessages() {
    QSet<QString> first;
    for (const QString& l : kLanguages) {
      QSet<QString> keys;
      for (const TsMessage& m : parseTs(readAll(tsPath(l))).messages) keys.insert(m.key());
      if (first.isEmpty()) {
        first = keys;
      } else {
        QCOMPARE(keys, first);
      }
    }
  }

  // A tr() string added to the code without running lupdate would show in English: extract
  // the sources again into a copy of each .ts file and require that nothing is new.
  void tsFilesCoverTheSources_data() { tsFileIsComplete_data(); }
  void tsFilesCoverTheSources() {
#ifndef GB_LUPDATE
    QSKIP("lupdate (Qt LinguistTools) not found at configure time");
#else
    QFETCH(QString, lang);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString copy = tmp.filePath(QFileInfo(tsPath(lang)).fileName());
    QVERIFY(QFile::copy(tsPath(lang), copy));
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(GB_SOURCE_DIR));
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(GB_LUPDATE),
            {u"widgets"_s, u"app/gui"_s, u"core/grow"_s, u"core/importance"_s, u"-ts"_s, copy,
             u"-no-obsolete"_s, u"-locations"_s, u"none"_s, u"-tr-function-alias"_s,
             u"QT_TRANSLATE_NOOP+=GB_TR"_s});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const TsFile fresh = parseTs(readAll(copy));
    const TsFile committed = parseTs(readAll(tsPath(lang)));
    QSet<QString> a, b;
    for (const TsMessage& m : fresh.messages) a.insert(m.key());
    for (const TsMessage& m : committed.messages) b.insert(m.key());
    QStringList added = QStringList(a.subtract(b).values());
    added.sort();
    QVERIFY2(added.isEmpty(),
             qPrintable(u"run lupdate and translate: %1 new, e.g. %2"_s.arg(added.size())
                            .arg(added.value(0).replace(u'\x1f', u" | "_s))));
    QCOMPARE(fresh.messages.size(), committed.messages.size());
#endif
  }

  // The checker must catch each kind of defect, or the completeness test could not fail.
  void checkerFindsDefects_data() {
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("problemCount");
    QTest::newRow("complete") << u"<message><source>&amp;Open %1</source>"
                                 "<translation>Ö&amp;ffnen %1</translation></message>"_s
                              << 0;
    QTest::newRow("unfinished") << u"<message><source>Open</source>"
                                   "<translation type=\"unfinished\">Öffnen</translation>"
                                   "</message>"_s
                                << 1;
    QTest::newRow("empty") << u"<message><source>Open</source>"
                              "<translation></translation></message>"_s
                           << 1;
    QTest::newRow("vanished") << u"<message><source>Open</source>"
                                 "<translation type=\"vanished\">Öffnen</translation>"
                                 "</message>"_s
                              << 1;
    QTest::newRow("placeholder lost") << u"<message><source>Open %1 in %2</source>"
                                         "<translation>%1 öffnen</translation></message>"_s
                                      << 1;
    QTest::newRow("accelerator lost") << u"<message><source>&amp;Quit</source>"
                                         "<translation>Beenden</translation></message>"_s
                                      << 1;
    QTest::newRow("tag lost") << u"<message><source>&lt;b&gt;Hi&lt;/b&gt;</source>"
                                 "<translation>Hallo</translation></message>"_s
                              << 1;
    QTest::newRow("plural form missing")
        << u"<message numerus=\"yes\"><source>%n run(s)</source><translation>"
           "<numerusform>%n Lauf</numerusform></translation></message>"_s
        << 1;
  }
  void checkerFindsDefects() {
    QFETCH(QString, message);
    QFETCH(int, problemCount);
    const QString xml =
        u"<?xml version=\"1.0\" encoding=\"utf-8\"?><!DOCTYPE TS>"
        "<TS version=\"2.1\" language=\"de_DE\"><context><name>X</name>"_s +
        message + u"</context></TS>"_s;
    const TsFile ts = parseTs(xml.toUtf8());
    QCOMPARE(ts.messages.size(), 1);
    QCOMPARE(problems(ts, 2).size(), problemCount);
  }

  void compiledTranslationTranslates_data() {
    QTest::addColumn<QString>("locale");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("comment");
    QTest::addColumn<int>("n");
    QTest::addColumn<QString>("expected");
    const QString mw = u"gb::gui::MainWindow"_s, ws = u"gb::gui::WorkspaceView"_s;
    const QString gp = u"gb::gui::GrowPlanner"_s;
    QTest::newRow("de menu") << u"de_DE"_s << mw << u"&File"_s << QString() << -1 << u"&Datei"_s;
    QTest::newRow("de view") << u"de_DE"_s << mw << u"Grow planner"_s << QString() << -1
                             << u"Wachstumsplaner"_s;
    QTest::newRow("de status") << u"de_DE"_s << u"RunStatus"_s << u"Finished"_s << QString() << -1
                               << u"Beendet"_s;
    // Variant names come from the registry (core/grow/variants/, context "GrowPlanner").
    QTest::newRow("de term") << u"de_DE"_s << u"GrowPlanner"_s << u"Full fine-tuning"_s << QString()
                             << -1 << u"Vollständige Feinabstimmung"_s;
    QTest::newRow("de singular") << u"de_DE"_s << ws << u"%n run(s)"_s << QString() << 1
                                 << u"1 Lauf"_s;
    QTest::newRow("de plural") << u"de_DE"_s << ws << u"%n run(s)"_s << QString() << 3
                               << u"3 Läufe"_s;
    QTest::newRow("de disambiguated")
        << u"de_DE"_s << gp << u"%1:"_s << u"form label"_s << -1 << u"%1:"_s;
    QTest::newRow("de_AT falls back to de")
        << u"de_AT"_s << mw << u"&Help"_s << QString() << -1 << u"&Hilfe"_s;
    QTest::newRow("zh menu") << u"zh_CN"_s << mw << u"&File"_s << QString() << -1 << u"文件(&F)"_s;
    QTest::newRow("zh term") << u"zh_CN"_s << u"gb::gui::RunTableModel"_s
                             << u"Original-domain perplexity: %1 at step 0, %2 at step %3"_s
                             << QString() << -1 << u"原始领域困惑度：第 0 步为 %1，第 %3 步为 %2"_s;
    QTest::newRow("zh plural") << u"zh_CN"_s << ws << u"%n run(s)"_s << QString() << 3
                               << u"3 个运行"_s;
    QTest::newRow("zh disambiguated")
        << u"zh_CN"_s << gp << u"%1:"_s << u"form label"_s << -1 << u"%1："_s;
  }
  void compiledTranslationTranslates() {
    QFETCH(QString, locale);
    QFETCH(QString, context);
    QFETCH(QString, source);
    QFETCH(QString, comment);
    QFETCH(int, n);
    QFETCH(QString, expected);
    ScopedTranslator tr(locale);
    QVERIFY2(tr.ok(), qPrintable(u"no growbench_*.qm for %1 in %2"_s.arg(locale, qmDir())));
    const QByteArray c = context.toUtf8(), s = source.toUtf8(), d = comment.toUtf8();
    QCOMPARE(QCoreApplication::translate(c.constData(), s.constData(),
                                         comment.isEmpty() ? nullptr : d.constData(), n),
             expected);
  }

  // The .qm in the build folder is compiled from the current .ts (not stale): every message
  // translates to exactly what the .ts says.
  void compiledTranslationMatchesTs_data() {
    tsFileIsComplete_data();
  }
  void compiledTranslationMatchesTs() {
    QFETCH(QString, lang);
    ScopedTranslator tr(lang);
    QVERIFY2(tr.ok(), qPrintable(qmDir()));
    QVERIFY2(tr.file().endsWith(u"growbench_%1.qm"_s.arg(lang)), qPrintable(tr.file()));
    const TsFile ts = parseTs(readAll(tsPath(lang)));
    QVERIFY(!ts.messages.isEmpty());
    for (const TsMessage& m : ts.messages) {
      const QByteArray c = m.context.toUtf8(), s = m.source.toUtf8(), d = m.comment.toUtf8();
      const char* disambiguation = m.comment.isEmpty() ? nullptr : d.constData();
      if (m.numerus) {
        QCOMPARE(tr.translator().translate(c.constData(), s.constData(), disambiguation, 1),
                 m.forms.first());
        QCOMPARE(tr.translator().translate(c.constData(), s.constData(), disambiguation, 5),
                 m.forms.last());
      } else {
        QCOMPARE(tr.translator().translate(c.constData(), s.constData(), disambiguation),
                 m.forms.value(0));
      }
    }
  }

  void settingsOfferExactlyTheShippedLanguages() {
    QStringList offered;
    for (const auto& [code, name] : SettingsDialog::languages()) {
      QVERIFY(!name.isEmpty());
      if (!code.isEmpty() && code != u"en"_s) offered << code;
    }
    offered.sort();
    QStringList shipped =
        QDir(QStringLiteral(GB_SOURCE_DIR) + u"/translations"_s)
            .entryList({u"growbench_*.ts"_s}, QDir::Files, QDir::Name)
            .replaceInStrings(QRegularExpression(u"^growbench_(.*)\\.ts$"_s), u"\\1"_s);
    QCOMPARE(offered, shipped);
    for (const QString& l : shipped) {
      QVERIFY2(QFileInfo::exists(qmDir() + u"/growbench_%1.qm"_s.arg(l)), qPrintable(l));
    }
  }

  // The real main window built under a translator: menus and dock titles are translated,
  // and no label, button or action shows an English source text the .ts translates
  // differently (a string that bypassed tr()).
  void mainWindowComesUpTranslated_data() {
    QTest::addColumn<QString>("lang");
    QTest::addColumn<QString>("fileMenu");
    QTest::addColumn<QString>("modelDock");
    QTest::newRow("de") << u"de"_s << u"&Datei"_s << u"Modell"_s;
    QTest::newRow("zh_CN") << u"zh_CN"_s << u"文件(&F)"_s << u"模型"_s;
  }
  void mainWindowComesUpTranslated() {
    QFETCH(QString, lang);
    QFETCH(QString, fileMenu);
    QFETCH(QString, modelDock);
    ScopedTranslator tr(lang);
    QVERIFY(tr.ok());
    QHash<QString, QString> english;  // source text -> translation, where they differ
    for (const TsMessage& m : parseTs(readAll(tsPath(lang))).messages) {
      if (!m.numerus && !m.forms.isEmpty() && m.forms.first() != m.source && m.source.size() > 2 &&
          !m.source.contains(u'%')) {
        english.insert(m.source, m.forms.first());
      }
    }
    QVERIFY(english.size() > 100);
    MainWindow w;
    w.setConfirmClose(false);
    QVERIFY(!w.menuBar()->actions().isEmpty());
    QCOMPARE(w.menuBar()->actions().first()->text(), fileMenu);
    QStringList docks;
    for (auto* d : w.findChildren<QDockWidget*>()) docks << d->windowTitle();
    QVERIFY2(docks.contains(modelDock), qPrintable(docks.join(u", "_s)));
    QStringList shown;
    for (QAction* a : w.findChildren<QAction*>()) shown << a->text() << a->toolTip();
    for (QWidget* c : w.findChildren<QWidget*>()) {
      shown << c->toolTip() << c->windowTitle();
      if (auto* l = qobject_cast<QLabel*>(c)) shown << l->text();
      if (auto* b = qobject_cast<QAbstractButton*>(c)) shown << b->text();
      if (auto* g = qobject_cast<QGroupBox*>(c)) shown << g->title();
    }
    QStringList untranslated;
    for (const QString& s : shown) {
      if (english.contains(s)) untranslated << s;
    }
    untranslated.removeDuplicates();
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(u" | "_s)));
  }
};

QTEST_MAIN(TstGuiTranslations)
#include "tst_gui_translations.moc"
