#pragma once
// Where a report's files go. A report writes several files into one directory (JSON,
// Markdown, HTML); checking all of them before writing any means a refused run leaves
// nothing half-replaced, and the rule matches the rest of hasim: existing output is never
// overwritten unless --force is given.
#include <string>
#include <string_view>
#include <vector>

namespace hasim {

// Creates `path` (with parents) if missing. Returns false with a message in `error` (if
// given) when it cannot, when `path` is not a directory, when one of `file_names` inside
// it is a directory, or, unless `force`, when any of `file_names` already exists: the
// message names every such file and says "use --force to overwrite".
bool prepare_output_dir(const std::string& path, const std::vector<std::string>& file_names,
                        bool force, std::string* error = nullptr);

// Writes `contents` to `path`, replacing it. The bytes go to "<path>.partial" first and
// are renamed over `path` only when complete, so a reader (or a shard merge) never sees a
// truncated file. Returns false with a message in `error` (if given) on failure.
bool write_text_file(const std::string& path, std::string_view contents,
                     std::string* error = nullptr);

}  // namespace hasim
