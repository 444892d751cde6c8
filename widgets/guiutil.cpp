#include "guiutil.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace gb::gui {

QString formatCount(double value) {
  if (std::isnan(value)) return u"–"_s;
  const double a = std::fabs(value);
  if (a >= 1e9) return QCoreApplication::translate("Format", "%1 G").arg(value / 1e9, 0, 'f', 2);
  if (a >= 1e6) return QCoreApplication::translate("Format", "%1 M").arg(value / 1e6, 0, 'f', 2);
  if (a >= 1e4) return QCoreApplication::translate("Format", "%1 k").arg(value / 1e3, 0, 'f', 1);
  return QString::number(static_cast<qint64>(std::llround(value)));
}

QString formatDuration(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds)) return u"–"_s;
  const qint64 s = static_cast<qint64>(std::llround(seconds));
  if (s >= 3600) {
    return QCoreApplication::translate("Format", "%1 h %2 min")
        .arg(s / 3600)
        .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
  }
  if (s >= 60) {
    return QCoreApplication::translate("Format", "%1 min %2 s")
        .arg(s / 60)
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  }
  return QCoreApplication::translate("Format", "%1 s").arg(s);
}

QString formatValue(double value) {
  if (std::isnan(value)) return u"–"_s;
  return QString::number(value, 'g', 4);
}

QString formatBytes(double bytes) {
  if (std::isnan(bytes) || bytes < 0) return u"–"_s;
  if (bytes >= 1024.0 * 1024 * 1024) {
    return QCoreApplication::translate("Format", "%1 GiB")
        .arg(bytes / (1024.0 * 1024 * 1024), 0, 'f', 2);
  }
  if (bytes >= 1024.0 * 1024) {
    return QCoreApplication::translate("Format", "%1 MiB").arg(bytes / (1024.0 * 1024), 0, 'f', 1);
  }
  if (bytes >= 1024.0) {
    return QCoreApplication::translate("Format", "%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
  }
  return QCoreApplication::translate("Format", "%1 B").arg(static_cast<qint64>(bytes));
}

QString formatPercent(double fraction) {
  if (std::isnan(fraction)) return u"–"_s;
  return QCoreApplication::translate("Format", "%1 %").arg(100.0 * fraction, 0, 'f', 1);
}

QString statusText(gb::store::RunStatus status) {
  using S = gb::store::RunStatus;
  switch (status) {
    case S::Queued:
      return QCoreApplication::translate("RunStatus", "Queued");
    case S::Running:
      return QCoreApplication::translate("RunStatus", "Running");
    case S::Finished:
      return QCoreApplication::translate("RunStatus", "Finished");
    case S::Failed:
      return QCoreApplication::translate("RunStatus", "Failed");
    case S::Cancelled:
      return QCoreApplication::translate("RunStatus", "Cancelled");
    case S::Interrupted:
      return QCoreApplication::translate("RunStatus", "Interrupted");
    case S::Diverged:
      return QCoreApplication::translate("RunStatus", "Diverged");
    case S::Stopped:
      return QCoreApplication::translate("RunStatus", "Stopped by its guard");
  }
  return {};
}

QColor statusColor(gb::store::RunStatus status, const QColor& base) {
  using S = gb::store::RunStatus;
  QColor c;
  switch (status) {
    case S::Queued:
      c = QColor(0x9e, 0x9e, 0x9e);
      break;
    case S::Running:
      c = QColor(0x1e, 0x88, 0xe5);
      break;
    case S::Finished:
      c = QColor(0x43, 0xa0, 0x47);
      break;
    case S::Failed:
      c = QColor(0xe5, 0x39, 0x35);
      break;
    case S::Cancelled:
      c = QColor(0xfb, 0x8c, 0x00);
      break;
    case S::Interrupted:
      c = QColor(0x8e, 0x24, 0xaa);
      break;
    case S::Diverged:
      c = QColor(0xc6, 0x28, 0x28);
      break;
    case S::Stopped:
      c = QColor(0x6d, 0x4c, 0x41);
      break;
  }
  // 30 % status colour over the view's base colour: a tint that keeps text readable.
  const double w = 0.30;
  return QColor::fromRgbF(static_cast<float>(w * c.redF() + (1 - w) * base.redF()),
                          static_cast<float>(w * c.greenF() + (1 - w) * base.greenF()),
                          static_cast<float>(w * c.blueF() + (1 - w) * base.blueF()));
}

QVector<double> emaSmooth(const QVector<double>& values, double weight) {
  if (weight <= 0) return values;
  weight = std::min(weight, 0.999);
  QVector<double> out(values.size());
  bool have = false;
  double s = 0;
  for (int i = 0; i < values.size(); ++i) {
    const double x = values[i];
    if (std::isnan(x)) {
      out[i] = x;
      continue;
    }
    s = have ? weight * s + (1 - weight) * x : x;
    have = true;
    out[i] = s;
  }
  return out;
}

QVector<int> paretoFrontier(const QVector<double>& x, const QVector<double>& y) {
  QVector<int> idx;
  for (int i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (!std::isnan(x[i]) && !std::isnan(y[i])) idx.push_back(i);
  }
  // Sort by x ascending, then y descending; sweep keeping strictly increasing best y.
  std::sort(idx.begin(), idx.end(), [&](int a, int b) {
    if (x[a] != x[b]) return x[a] < x[b];
    if (y[a] != y[b]) return y[a] > y[b];
    return a < b;
  });
  QVector<int> front;
  double bestY = -std::numeric_limits<double>::infinity();
  for (int i : idx) {
    if (y[i] > bestY) {
      front.push_back(i);
      bestY = y[i];
    }
  }
  return front;
}

OpBwt computeOpBwt(const std::vector<std::vector<double>>& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  OpBwt out{nan, nan};
  const size_t n = r.size();
  if (n == 0 || r.back().size() < n) return out;
  double sum = 0;
  for (size_t j = 0; j < n; ++j) sum += r[n - 1][j];
  out.op = sum / static_cast<double>(n);
  if (n >= 2) {
    double b = 0;
    for (size_t j = 0; j + 1 < n; ++j) {
      if (r[j].size() <= j) return out;
      b += r[n - 1][j] - r[j][j];
    }
    out.bwt = b / static_cast<double>(n - 1);
  }
  return out;
}

QString displayPath(const QString& path) {
  const QString home = QDir::cleanPath(QDir::homePath());
  const QString clean = QDir::cleanPath(path);
  if (home.size() > 1 && (clean == home || clean.startsWith(home + u'/'))) {
    return QDir::toNativeSeparators(u"~"_s + clean.mid(home.size()));
  }
  return QDir::toNativeSeparators(path);
}

QString findCli() {
  const QString env = qEnvironmentVariable("GROWBENCH_CLI");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(u"growbench-cli"_s);
  if (QFileInfo(beside).isExecutable()) return beside;
  // Build tree: app/gui/growbench next to app/cli/growbench-cli.
  const QString sibling =
      QDir(QCoreApplication::applicationDirPath()).filePath(u"../cli/growbench-cli"_s);
  if (QFileInfo(sibling).isExecutable()) return QFileInfo(sibling).canonicalFilePath();
  return QStandardPaths::findExecutable(u"growbench-cli"_s);
}

QString layersText(const QVector<int>& layersIn) {
  QVector<int> layers = layersIn;
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  QStringList parts;
  for (int i = 0; i < layers.size();) {
    int j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    if (j - i >= 2) {
      parts << u"%1–%2"_s.arg(layers[i]).arg(layers[j]);
    } else {
      for (int k = i; k <= j; ++k) parts << QString::number(layers[k]);
    }
    i = j + 1;
  }
  return parts.join(u", "_s);
}

bool parseLayers(const QString& text, QVector<int>* layers) {
  QVector<int> out;
  QString t = text;
  t.replace(QChar(0x2013), QLatin1Char('-'));
  const QStringList parts = t.split(QLatin1Char(','), Qt::SkipEmptyParts);
  for (QString p : parts) {
    p = p.trimmed();
    if (p.isEmpty()) continue;
    const int dash = p.indexOf(QLatin1Char('-'), 1);
    bool ok1 = false, ok2 = false;
    if (dash > 0) {
      const int a = p.left(dash).trimmed().toInt(&ok1);
      const int b = p.mid(dash + 1).trimmed().toInt(&ok2);
      if (!ok1 || !ok2 || a < 0 || b < a) return false;
      for (int v = a; v <= b; ++v) out.push_back(v);
    } else {
      const int a = p.toInt(&ok1);
      if (!ok1 || a < 0) return false;
      out.push_back(a);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  *layers = out;
  return true;
}

QString userErrorMessage(const QString& line) {
  static const QRegularExpression prefix(
      u"^\\s*(?:\\[[^\\]]*\\]\\s*)*(?:growbench(?:-cli)?\\s+)?(?:[A-Za-z][\\w-]*:\\s*)?"
      u"(?:error|fatal|critical)\\s*:\\s*"_s,
      QRegularExpression::CaseInsensitiveOption);
  static const QRegularExpression spdlog(u"^\\s*(?:\\[[^\\]]*\\]\\s*)+"_s);
  QString out = line.trimmed();
  const auto m = prefix.match(out);
  if (m.hasMatch()) {
    out = out.mid(m.capturedLength());
  } else {
    out.remove(spdlog);
  }
  if (!out.isEmpty()) out[0] = out[0].toUpper();
  return out;
}

}  // namespace gb::gui
