#include "sweepeditor.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <set>

#include "experiment/expand.h"
#include "grow/variant.h"
#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace gg = gb::grow;
using Json = nlohmann::json;

namespace {

const QRegularExpression& listSplit() {
  static const QRegularExpression re(u"[,;\\s]+"_s);
  return re;
}

QString rangeText(double lo, double hi) {
  if (lo <= -1e299 && hi >= 1e299) return {};
  if (lo <= -1e299) return u"≤ %1"_s.arg(hi);
  if (hi >= 1e299) return u"≥ %1"_s.arg(lo);
  return u"%1 … %2"_s.arg(lo).arg(hi);
}

}  // namespace

SweepEditor::SweepEditor(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  auto* seedsLabel = new QLabel(tr("Seeds:"));
  m_seeds = new QLineEdit;
  m_seeds->setPlaceholderText(tr("e.g. 0, 1, 2 (empty: one run with the seed above)"));
  m_seeds->setToolTip(
      tr("One run per seed: the seed sets the data order and the initial values of new "
         "parameters; the base model and the data splits stay the same"));
  seedsLabel->setBuddy(m_seeds);
  row->addWidget(seedsLabel);
  row->addWidget(m_seeds, 1);
  row->addWidget(new QLabel(tr("Sweep:")));
  m_mode = new QComboBox;
  m_mode->addItem(tr("grid"), u"grid"_s);
  m_mode->addItem(tr("random"), u"random"_s);
  m_mode->setToolTip(
      tr("Grid: every combination of the values. Random: N samples, each value drawn from "
         "its list or range"));
  row->addWidget(m_mode);
  m_samples = new QSpinBox;
  m_samples->setRange(1, 10000);
  m_samples->setValue(8);
  m_samples->setPrefix(tr("samples: "));
  m_samples->setEnabled(false);
  row->addWidget(m_samples);
  m_add = new QPushButton(tr("Add key"));
  m_add->setToolTip(tr("Sweep one more hyper-parameter"));
  m_remove = new QPushButton(tr("Remove key"));
  row->addWidget(m_add);
  row->addWidget(m_remove);
  m_count = new QLabel;
  m_count->setTextInteractionFlags(Qt::TextSelectableByMouse);
  row->addWidget(m_count);
  v->addLayout(row);
  m_table = new QTableWidget(0, 2);
  m_table->setHorizontalHeaderLabels({tr("Key"), tr("Values")});
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
  m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  m_table->horizontalHeader()->resizeSection(0, 220);
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setMaximumHeight(110);
  m_table->setVisible(false);
  v->addWidget(m_table);

  connect(m_seeds, &QLineEdit::textChanged, this, [this] {
    markField(m_seeds, {});
    emit changed();
  });
  connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
    m_samples->setEnabled(mode() == u"random"_s);
    emit changed();
  });
  connect(m_samples, &QSpinBox::valueChanged, this, &SweepEditor::changed);
  connect(m_add, &QPushButton::clicked, this, [this] { addSweepRow(); });
  connect(m_remove, &QPushButton::clicked, this, [this] {
    int row = m_table->currentRow();
    if (row < 0) row = m_table->rowCount() - 1;
    if (row >= 0) removeSweepRow(row);
  });
  refreshKeys();
}

void SweepEditor::setVariantsProvider(std::function<QStringList()> provider) {
  m_variants = std::move(provider);
  refreshKeys();
}

void SweepEditor::refreshKeys() {
  m_variantIds = m_variants ? m_variants() : QStringList();
  QStringList keys;
  for (const QString& id : m_variantIds) {
    const gg::VariantModule* m = gg::find_variant(ss(id));
    if (!m) continue;
    for (const gg::ParamSpec& p : m->params) {
      if (p.hidden) continue;
      using T = gg::ParamSpec::Type;
      if (p.type != T::Int && p.type != T::Number && p.type != T::Bool && p.type != T::Choice) {
        continue;
      }
      if (!keys.contains(qs(p.name))) keys << qs(p.name);
    }
  }
  for (const char* k : {"replay", "ewc.lambda"}) {
    if (!keys.contains(QLatin1String(k))) keys << QLatin1String(k);
  }
  for (const auto& t : gb::experiment::sweepable_train_keys()) keys << u"train."_s + qs(t);
  m_keys = keys;
  for (int r = 0; r < m_table->rowCount(); ++r) {
    auto* combo = qobject_cast<QComboBox*>(m_table->cellWidget(r, 0));
    if (!combo) continue;
    const QString keep = combo->currentText();
    QSignalBlocker b(combo);
    combo->clear();
    for (const QString& k : m_keys) {
      combo->addItem(k);
      combo->setItemData(combo->count() - 1, keyInfo(k).help, Qt::ToolTipRole);
    }
    combo->setCurrentText(keep);
  }
}

SweepEditor::KeyInfo SweepEditor::keyInfo(const QString& key) const {
  KeyInfo info;
  if (key.startsWith(u"train."_s)) {
    const QString t = key.mid(6);
    if (t == u"schedule"_s) {
      info.type = u"string"_s;
    } else if (t == u"steps"_s || t == u"batch_size"_s || t == u"accumulation"_s ||
               t == u"warmup"_s) {
      info.type = u"int"_s;
      info.min = t == u"warmup"_s ? 0 : 1;
    } else {
      info.type = u"number"_s;
      info.min = 0;
    }
    info.help = tr("training setting %1").arg(key);
    return info;
  }
  if (key == u"replay"_s) {
    info.type = u"number"_s;
    info.min = 0;
    info.max = 1;
    info.help = tr("share of original-domain replay in each batch (plan key)");
    return info;
  }
  if (key.startsWith(u"ewc."_s)) {
    info.type = u"number"_s;
    info.min = 0;
    info.help = tr("EWC setting %1 (plan key)").arg(key);
    return info;
  }
  for (const QString& id : m_variantIds) {
    const gg::VariantModule* m = gg::find_variant(ss(id));
    const gg::ParamSpec* p = m ? m->find(ss(key)) : nullptr;
    if (!p) continue;
    using T = gg::ParamSpec::Type;
    info.type = p->type == T::Int      ? u"int"_s
                : p->type == T::Number ? u"number"_s
                : p->type == T::Bool   ? u"bool"_s
                                       : u"choice"_s;
    for (const auto& c : p->choices) info.choices << qs(c);
    if (p->min) info.min = *p->min;
    if (p->max) info.max = *p->max;
    QString help = qs(p->label.empty() ? p->name : p->label);
    const QString range = rangeText(info.min, info.max);
    if (!range.isEmpty()) help += u" (%1)"_s.arg(range);
    if (!info.choices.isEmpty()) help += u" (%1)"_s.arg(info.choices.join(u", "_s));
    if (!p->help.empty()) help += u": "_s + qs(p->help);
    info.help = tr("%1 parameter %2").arg(id, help);
    return info;
  }
  info.type = u"any"_s;
  info.help = tr("a plan parameter by its schema name");
  return info;
}

int SweepEditor::addSweepRow(const QString& key, const QString& values) {
  refreshKeys();
  const int row = m_table->rowCount();
  m_table->insertRow(row);
  auto* combo = new QComboBox;
  combo->setEditable(true);
  for (const QString& k : m_keys) {
    combo->addItem(k);
    combo->setItemData(combo->count() - 1, keyInfo(k).help, Qt::ToolTipRole);
  }
  combo->setCurrentText(key.isEmpty() ? u"train.lr"_s : key);
  auto* edit = new QLineEdit(values);
  edit->setPlaceholderText(tr("values, e.g. 1e-4, 3e-4, 1e-3 (random: log_uniform(1e-5, 1e-3))"));
  m_table->setCellWidget(row, 0, combo);
  m_table->setCellWidget(row, 1, edit);
  m_table->setVisible(true);
  auto update = [this, combo, edit] {
    edit->setToolTip(keyInfo(combo->currentText()).help);
    markField(edit, {});
    emit changed();
  };
  connect(combo, &QComboBox::currentTextChanged, this, update);
  connect(edit, &QLineEdit::textChanged, this, update);
  edit->setToolTip(keyInfo(combo->currentText()).help);
  emit changed();
  return row;
}

void SweepEditor::removeSweepRow(int row) {
  if (row < 0 || row >= m_table->rowCount()) return;
  m_table->removeRow(row);
  m_table->setVisible(m_table->rowCount() > 0);
  emit changed();
}

void SweepEditor::clearSweep() {
  m_table->setRowCount(0);
  m_table->setVisible(false);
  emit changed();
}

int SweepEditor::sweepRowCount() const {
  return m_table->rowCount();
}

void SweepEditor::setSeeds(const QString& text) {
  m_seeds->setText(text);
}

QString SweepEditor::seedsText() const {
  return m_seeds->text();
}

void SweepEditor::setMode(const QString& mode, int samples) {
  m_mode->setCurrentIndex(std::max(0, m_mode->findData(mode)));
  m_samples->setValue(samples);
}

QString SweepEditor::mode() const {
  return m_mode->currentData().toString();
}

void SweepEditor::markField(QWidget* w, const QString& error) const {
  w->setStyleSheet(error.isEmpty() ? QString() : u"border: 1px solid #d03030;"_s);
  if (!error.isEmpty()) w->setToolTip(error);
}

Json SweepEditor::parseValues(const QString& key, const QString& text, QString* error) const {
  const KeyInfo info = keyInfo(key);
  const QString t = text.trimmed();
  // Ranges (random mode): log_uniform(a, b) or uniform(a, b).
  static const QRegularExpression range(
      u"^(log_uniform|uniform)\\s*\\(\\s*([^,\\s]+)\\s*,\\s*([^\\)\\s]+)\\s*\\)$"_s);
  const auto m = range.match(t);
  if (m.hasMatch()) {
    if (mode() != u"random"_s) {
      *error = tr("%1: ranges need the random sweep mode").arg(key);
      return {};
    }
    bool ok1 = false, ok2 = false;
    const double lo = m.captured(2).toDouble(&ok1), hi = m.captured(3).toDouble(&ok2);
    if (!ok1 || !ok2 || lo > hi) {
      *error = tr("%1: expected %2(low, high) with numbers, low ≤ high").arg(key, m.captured(1));
      return {};
    }
    if (m.captured(1) == u"log_uniform"_s && lo <= 0) {
      *error = tr("%1: a log-uniform range needs low > 0").arg(key);
      return {};
    }
    return Json{{ss(m.captured(1)), {lo, hi}}};
  }
  const QStringList parts = t.split(listSplit(), Qt::SkipEmptyParts);
  if (parts.isEmpty()) {
    *error = tr("%1: give at least one value").arg(key);
    return {};
  }
  Json values = Json::array();
  for (const QString& p : parts) {
    if (info.type == u"int"_s || info.type == u"number"_s) {
      bool ok = false;
      const double x = p.toDouble(&ok);
      if (!ok || !std::isfinite(x)) {
        *error = tr("%1: “%2” is not a number").arg(key, p);
        return {};
      }
      if (info.type == u"int"_s && x != std::floor(x)) {
        *error = tr("%1: “%2” is not a whole number").arg(key, p);
        return {};
      }
      if (x < info.min || x > info.max) {
        *error = tr("%1: %2 is outside %3").arg(key, p, rangeText(info.min, info.max));
        return {};
      }
      values.push_back(info.type == u"int"_s ? Json(static_cast<int64_t>(x)) : Json(x));
    } else if (info.type == u"bool"_s) {
      if (p != u"true"_s && p != u"false"_s) {
        *error = tr("%1: expected true or false, found “%2”").arg(key, p);
        return {};
      }
      values.push_back(p == u"true"_s);
    } else if (info.type == u"choice"_s) {
      if (!info.choices.isEmpty() && !info.choices.contains(p)) {
        *error = tr("%1: “%2” is not one of %3").arg(key, p, info.choices.join(u", "_s));
        return {};
      }
      values.push_back(ss(p));
    } else {
      // Unknown keys: numbers stay numbers, the rest text.
      bool ok = false;
      const double x = p.toDouble(&ok);
      if (ok) {
        values.push_back(x == std::floor(x) && std::fabs(x) < 1e15 ? Json(static_cast<int64_t>(x))
                                                                   : Json(x));
      } else if (p == u"true"_s || p == u"false"_s) {
        values.push_back(p == u"true"_s);
      } else {
        values.push_back(ss(p));
      }
    }
  }
  std::set<std::string> seen;
  for (const auto& v : values) {
    if (!seen.insert(v.dump()).second) {
      *error = tr("%1: %2 appears twice").arg(key, qs(v.dump()));
      return {};
    }
  }
  return values;
}

bool SweepEditor::apply(Json& spec, QString* error) const {
  auto fail = [&](QWidget* w, const QString& e) {
    markField(w, e);
    if (error) *error = e;
    return false;
  };
  const QString seedsText = m_seeds->text().trimmed();
  if (!seedsText.isEmpty()) {
    Json seeds = Json::array();
    std::set<qint64> seen;
    for (const QString& p : seedsText.split(listSplit(), Qt::SkipEmptyParts)) {
      bool ok = false;
      const qint64 s = p.toLongLong(&ok);
      if (!ok || s < 0) {
        return fail(m_seeds, tr("Seeds: “%1” is not a non-negative whole number").arg(p));
      }
      if (!seen.insert(s).second) return fail(m_seeds, tr("Seeds: %1 appears twice").arg(s));
      seeds.push_back(s);
    }
    spec["seeds"] = seeds;
  }
  if (m_table->rowCount() == 0) return true;
  Json sweep = Json::object();
  for (int r = 0; r < m_table->rowCount(); ++r) {
    auto* combo = qobject_cast<QComboBox*>(m_table->cellWidget(r, 0));
    auto* edit = qobject_cast<QLineEdit*>(m_table->cellWidget(r, 1));
    const QString key = combo->currentText().trimmed();
    if (key.isEmpty()) return fail(combo, tr("Sweep row %1: choose a key").arg(r + 1));
    if (sweep.contains(ss(key))) return fail(combo, tr("Sweep: %1 appears twice").arg(key));
    QString e;
    const Json values = parseValues(key, edit->text(), &e);
    if (!e.isEmpty()) return fail(edit, tr("Sweep: %1").arg(e));
    sweep[ss(key)] = values;
  }
  spec["sweep"] = sweep;
  if (mode() == u"random"_s) {
    spec["sweep_mode"] = "random";
    spec["samples"] = m_samples->value();
  }
  return true;
}

void SweepEditor::load(const Json& spec) {
  {
    QSignalBlocker b(this);
    m_seeds->clear();
    m_table->setRowCount(0);
    if (spec.contains("seeds") && spec["seeds"].is_array()) {
      QStringList t;
      for (const auto& s : spec["seeds"]) t << qs(s.dump());
      m_seeds->setText(t.join(u", "_s));
    }
    setMode(qs(spec.value("sweep_mode", std::string("grid"))),
            static_cast<int>(spec.value("samples", static_cast<int64_t>(8))));
    if (spec.contains("sweep") && spec["sweep"].is_object()) {
      for (auto it = spec["sweep"].begin(); it != spec["sweep"].end(); ++it) {
        QString values;
        if (it->is_array()) {
          QStringList t;
          for (const auto& v : *it) t << (v.is_string() ? qs(v.get<std::string>()) : qs(v.dump()));
          values = t.join(u", "_s);
        } else if (it->is_object() && it->size() == 1 && it->begin()->is_array() &&
                   it->begin()->size() == 2) {
          values = u"%1(%2, %3)"_s.arg(qs(it->begin().key()), qs((*it->begin())[0].dump()),
                                       qs((*it->begin())[1].dump()));
        } else {
          values = qs(it->dump());
        }
        addSweepRow(qs(it.key()), values);
      }
    }
    m_table->setVisible(m_table->rowCount() > 0);
  }
  emit changed();
}

void SweepEditor::setRunCount(int runs, const QString& detail) {
  if (runs < 0) {
    m_count->setText(tr("→ ? runs"));
    m_count->setToolTip(detail);
    return;
  }
  m_count->setText(tr("→ %n run(s)", nullptr, runs));
  m_count->setToolTip(detail);
}

QString SweepEditor::runCountText() const {
  return m_count->text();
}

}  // namespace gb::gui
