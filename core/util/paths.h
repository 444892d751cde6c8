#pragma once
// Default locations: the workspace (a folder holding the run store growbench.db and the
// runs' checkpoints) is $GROWBENCH_WORKSPACE, else $XDG_DATA_HOME/growbench, else
// ~/.local/share/growbench.

#include <string>

namespace gb {

std::string default_workspace_dir();
std::string default_store_path();  // <default workspace>/growbench.db

}  // namespace gb
