// The folder where the engine keeps what it can make again but would rather
// not (CACTI runs, imported traces): ${XDG_CACHE_HOME:-~/.cache}/ibsec, the
// XDG base-directory rule, so that a user's cache sits with the others and
// deleting it loses nothing but time.
#pragma once

#include <filesystem>
#include <optional>

namespace ibsec {

// ${XDG_CACHE_HOME}/ibsec, else ${HOME}/.cache/ibsec; none when neither is set.
std::optional<std::filesystem::path> user_cache_folder();

}  // namespace ibsec
