// Which source a trace was imported from: a SHA-256 over the files an
// import read (an OTF2 archive, a DUMPI run), each by the name it is listed
// under and its bytes, written into the trace's notes.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ibsec::traces {

// (name, path) pairs, in the order given; the digest as lower-case hex.
std::string source_digest(const std::vector<std::pair<std::string, std::filesystem::path>>& files);

// The digest of the running program's own file (/proc/self/exe), computed
// once: which build of the importer made a trace, so that a cached import
// made by another build is made again.
const std::string& running_program_digest();

}  // namespace ibsec::traces
