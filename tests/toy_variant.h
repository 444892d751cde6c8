#pragma once
// A variant declared in test code only: "test-hooked", full fine-tuning with one parameter,
// `freeze_at`. Its declaration (id, texts, schema, estimate) is here, torch-free;
// tst_runner.cpp adds its run-time behaviour (apply and every run-time hook of
// grow/run_hooks.h: a Fisher pass, a warning, a per-step hook that sets the first group's
// rate to 0 at step `freeze_at`) and runs it (aVariantsRunHooksNeedNoRunnerChange); tst_gui
// registers the declaration and sees the Grow planner and the experiment editor's plan form
// follow its schema and its plan parse as the CLI parses it
// (plannerAndEditorServeAVariantDeclaredInTestCode). No file outside the tests names it: the
// "Add a variant" recipe of docs/architecture.md. Each test binary registers it once.

#include <cstdint>
#include <memory>

#include "grow/variant.h"
#include "model/config.h"

namespace gb::test {

struct HookedParams : grow::VariantParamsOf<HookedParams> {
  int64_t freeze_at = 2;
};

inline grow::VariantModule hooked_declaration() {
  grow::VariantModule m;
  m.id = "test-hooked";
  m.name = "Hooked (test)";
  m.paper = "tests/toy_variant.h";
  m.description = "Full fine-tuning with every run-time hook.";
  m.make = [] { return std::make_unique<HookedParams>(); };
  {
    auto& s = m.param("freeze_at", &HookedParams::freeze_at, grow::ParamSpec::Type::Int);
    s.min = 0;
    s.max = 1000;
  }
  m.estimate = [](const grow::VariantParams&, const gb::ModelConfig& c) {
    grow::VariantEstimate e;
    e.trainable = c.param_count();
    return e;
  };
  return m;
}

}  // namespace gb::test
