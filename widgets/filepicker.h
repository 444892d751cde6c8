#pragma once
// File and folder pickers shared by the views. They show every file (fortune files and many
// corpora have no extension), pick folders where a folder is meant (Hugging Face model
// folders, fortune directories), start in the location last used for the same kind of thing
// and list the recent locations in the dialog's sidebar (AppSettings, "recent/<category>").

#include <QString>
#include <QStringList>

class QWidget;

namespace gb::gui {

enum class PickKind { File, Folder, SaveFile };

// Categories of recent locations: "data", "model", "spec", "workspace", "export".
// `filter` (File and SaveFile): a Qt name filter; "All files (*)" is always offered too.
// Returns "" when cancelled.
QString pickPath(QWidget* parent, PickKind kind, const QString& category, const QString& title,
                 const QString& current = {}, const QString& filter = {});

// The recent locations of a category (folders, newest first, at most 8).
QStringList recentLocations(const QString& category);
void addRecentLocation(const QString& category, const QString& path);

// What a dropped or command-line path is: a model folder (config.json inside), an experiment
// spec (.json with "version" or "plans"/"plan"/"model" at the top), a run store (an SQLite
// file, or a folder holding growbench.db), or nothing GrowBench opens.
enum class PathKind { Unknown, ModelFolder, Spec, Store, Workspace };
PathKind classifyPath(const QString& path);

}  // namespace gb::gui
