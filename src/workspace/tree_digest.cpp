#include "strata/workspace/tree_digest.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>


#include "strata/error.hpp"
#include "strata/model/study/content_hash.hpp"
#include "strata/store/artifact_file.hpp"
#include "strata/store/file_descriptor.hpp"
#include "strata/workspace/tree_entries.hpp"

namespace strata::workspace {
namespace {

// One record per entry, NUL-separated so no name can imitate another's record:
// "<type>\0<path>\0<content sha256 or link target>\0" (type f, x (executable), l, d).
void digest_directory(const std::string& root, const std::string& relative, model::Sha256& all) {
  std::error_code error;
  const std::string directory = relative.empty() ? root : root + "/" + relative;
  const std::vector<std::string> names = sorted_names(directory, error);
  if (error) throw Error("cannot read the repository tree: " + error.message(), directory);
  for (const auto& name : names) {
    if (relative.empty() && name == ".git") continue;
    const std::string rel = relative.empty() ? name : relative + "/" + name;
    const std::string path = root + "/" + rel;
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) throw Error("cannot read the repository tree", path);
    if (S_ISDIR(info.st_mode)) {
      all.update(std::string("d\0", 2) + rel + std::string("\0\0", 2));
      digest_directory(root, rel, all);
    } else if (S_ISLNK(info.st_mode)) {
      const std::string target = link_target(path).value_or("");
      all.update(std::string("l\0", 2) + rel + std::string(1, '\0') + target + std::string(1, '\0'));
    } else if (S_ISREG(info.st_mode)) {
      const store::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
      if (file.get() < 0) throw Error("cannot read the repository tree", path);
      model::Sha256 content;
      store::read_file_pieces(file.get(), path, [&content](std::string_view piece) {
        content.update(piece);
        return true;
      });
      const char* type = (info.st_mode & 0111) != 0 ? "x" : "f";
      all.update(std::string(type) + std::string(1, '\0') + rel + std::string(1, '\0') + content.hex() + std::string(1, '\0'));
    }
  }
}

}  // namespace

std::string files_digest(const std::string& root) {
  model::Sha256 all;
  digest_directory(root, "", all);
  return "files-sha256:" + all.hex();
}

}  // namespace strata::workspace
