#include "importance/probe_writer.h"

#include <cmath>

#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace gb::importance {

using Json = nlohmann::json;

namespace {

// NaN (a missing cell) as JSON null.
Json number(double v) {
  return std::isnan(v) ? Json(nullptr) : Json(v);
}

Json vector_json(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push_back(number(x));
  return a;
}

Json matrix_json(const std::vector<std::vector<double>>& m) {
  Json a = Json::array();
  for (const auto& row : m) a.push_back(vector_json(row));
  return a;
}

std::vector<double> vector_from(const Json& j, const std::string& ctx) {
  if (!j.is_array()) fail("{}: expected an array of numbers, found {}", ctx, json::type_name(j));
  std::vector<double> v;
  for (const auto& x : j) {
    if (x.is_null()) {
      v.push_back(kMissing);
    } else if (x.is_number()) {
      v.push_back(x.get<double>());
    } else {
      fail("{}: expected numbers or null, found {}", ctx, x.dump());
    }
  }
  return v;
}

std::vector<std::vector<double>> matrix_from(const Json& j, const std::string& ctx) {
  if (!j.is_array()) fail("{}: expected an array of rows, found {}", ctx, json::type_name(j));
  std::vector<std::vector<double>> m;
  for (const auto& row : j) m.push_back(vector_from(row, ctx));
  return m;
}

}  // namespace

Json probe_json(const ProbeResult& r) {
  Json j = {{"method", r.method},
            {"layers", vector_json(r.layers)},
            {"units", {{"names", r.unit_names}, {"values", matrix_json(r.units)}}}};
  if (!std::isnan(r.base_loss)) j["base_loss"] = r.base_loss;
  if (!r.layer_mean_rank.empty()) j["layers_mean_rank"] = vector_json(r.layer_mean_rank);
  if (!r.stage_names.empty()) {
    j["stages"] = {
        {"names", r.stage_names}, {"steps", r.stage_steps}, {"values", matrix_json(r.stages)}};
  }
  if (!r.details.empty()) j["details"] = r.details;
  return j;
}

ProbeResult probe_from_json(const Json& j, const std::string& ctx) {
  ProbeResult r;
  r.method = json::get<std::string>(j, "method", ctx);
  r.layers = vector_from(json::get<Json>(j, "layers", ctx), ctx + ".layers");
  if (j.contains("units")) {
    const auto& u = j["units"];
    r.unit_names = json::get<std::vector<std::string>>(u, "names", ctx + ".units");
    r.units = matrix_from(json::get<Json>(u, "values", ctx + ".units"), ctx + ".units.values");
  }
  if (j.contains("base_loss") && j["base_loss"].is_number()) {
    r.base_loss = j["base_loss"].get<double>();
  }
  if (j.contains("layers_mean_rank")) {
    r.layer_mean_rank = vector_from(j["layers_mean_rank"], ctx + ".layers_mean_rank");
  }
  if (j.contains("stages")) {
    const auto& s = j["stages"];
    r.stage_names = json::get<std::vector<std::string>>(s, "names", ctx + ".stages");
    r.stage_steps = json::get_or<std::vector<int64_t>>(s, "steps", {}, ctx + ".stages");
    r.stages = matrix_from(json::get<Json>(s, "values", ctx + ".stages"), ctx + ".stages.values");
  }
  if (j.contains("details")) r.details = j["details"];
  return r;
}

void write_probe_json(const std::string& path, const ProbeResult& result, const Json& extra) {
  Json j = probe_json(result);
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  write_file_atomic(path, j.dump(2) + "\n");
}

int64_t record_probe(store::Store& st, const ProbeResult& r, const ProbeRecord& rec) {
  if (rec.model_key.empty()) fail("recording a probe: the model key is empty");
  store::WriteTransaction tx(st);
  store::ModelInfo model;
  model.key = rec.model_key;
  model.family = rec.model_family;
  model.config = rec.model_config;
  model.params = rec.model_params;
  const int64_t model_id = st.upsert_model(model);
  std::optional<int64_t> dataset_id;
  if (!rec.dataset_name.empty()) {
    store::DatasetInfo d;
    d.name = rec.dataset_name;
    d.path = rec.dataset_path;
    d.kind = rec.dataset_kind;
    d.hash = rec.dataset_hash;
    d.tokens = rec.dataset_tokens;
    dataset_id = st.upsert_dataset(d);
  }
  store::NewProbe p;
  p.model_id = model_id;
  p.method = r.method;
  p.probe_set = rec.probe_set;
  p.dataset_id = dataset_id;
  p.run_id = rec.run_id;
  p.duration_s = rec.duration_s;
  // The parts of the result without a column of their own (see the header).
  Json result = probe_json(r);
  result.erase("layers");
  result.erase("units");
  if (result.contains("stages")) result["stages"].erase("values");
  Json params = rec.params;
  params["result"] = result;
  p.params = params.dump();
  store::ImportanceMatrix m;
  m.layer_values = r.layers;
  if (!r.stage_names.empty()) {
    m.units = r.stage_names;
    m.unit_values = r.stages;
  } else {
    m.units = r.unit_names;
    m.unit_values = r.units;
  }
  const int64_t id = st.add_probe(p, m);
  tx.commit();
  return id;
}

ProbeResult load_probe(store::Store& st, int64_t probe_id) {
  std::optional<store::ProbeInfo> info;
  for (auto& p : st.list_probes()) {
    if (p.id == probe_id) info = p;
  }
  if (!info) fail("run store '{}': no probe with id {}", st.path(), probe_id);
  const std::string ctx = "probe " + std::to_string(probe_id);
  Json params = json::parse(info->params, ctx + " parameters");
  Json j = params.value("result", Json::object());
  j["method"] = info->method;
  auto m = st.importance(probe_id);
  j["layers"] = Json::array();  // the cells come from the importance table
  if (j.contains("stages")) j["stages"]["values"] = Json::array();
  ProbeResult r = probe_from_json(j, ctx);
  r.layers = m.layer_values;
  if (j.contains("stages")) {
    r.stage_names = m.units;
    r.stages = m.unit_values;
  } else {
    r.unit_names = m.units;
    r.units = m.unit_values;
  }
  return r;
}

}  // namespace gb::importance
