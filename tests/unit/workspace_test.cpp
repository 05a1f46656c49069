// workspace/: what an execution changed (an overlay's upper directory, a copy), its patch, the
// tree digest and the bubblewrap command line, on real files in a temporary directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "strata/workspace/confinement.hpp"
#include "strata/workspace/tree_changes.hpp"
#include "strata/workspace/tree_copy.hpp"
#include "strata/workspace/tree_digest.hpp"
#include "strata/workspace/workspace_patch.hpp"

namespace fs = std::filesystem;
using namespace strata::workspace;

namespace {

struct Scratch {
  std::string path;
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "strata-workspace-test.XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~Scratch() { remove_tree(path); }
};

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "<kind letter> <path>" per change: a added, m modified, d deleted.
std::vector<std::string> listed(const TreeChanges& changes) {
  std::vector<std::string> lines;
  for (const auto& c : changes.files)
    lines.push_back(std::string(c.kind == TreeChange::Kind::added ? "a " : c.kind == TreeChange::Kind::modified ? "m " : "d ") + c.path);
  return lines;
}

void make_repository(const std::string& root) {
  write(root + "/README.md", "readme\n");
  write(root + "/src/main.cpp", "int main() {}\n");
  write(root + "/src/old.txt", "old\n");
  write(root + "/docs/a.txt", "a\n");
  write(root + "/docs/b.txt", "b\n");
  fs::create_symlink("README.md", root + "/link");
}

}  // namespace

TEST_CASE("a copy keeps files, links, modes and times; its changes are listed and counted", "[workspace]") {
  Scratch scratch;
  const std::string repo = scratch.path + "/repo", copy = scratch.path + "/copy";
  make_repository(repo);
  ::chmod((repo + "/src/main.cpp").c_str(), 0755);
  copy_tree(repo, copy);
  CHECK(fs::is_symlink(copy + "/link"));
  CHECK(fs::read_symlink(copy + "/link") == "README.md");
  CHECK((fs::status(copy + "/src/main.cpp").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK(copy_changes(repo, copy).files.empty());
  CHECK(files_digest(repo) == files_digest(copy));

  write(copy + "/README.md", "readme\nmore\n");    // modified
  write(copy + "/new/deep/file.txt", "new\n");     // added, nested
  fs::remove(copy + "/src/old.txt");               // deleted
  fs::remove_all(copy + "/docs");                  // a directory's files deleted
  ::utimensat(AT_FDCWD, (copy + "/src/main.cpp").c_str(), nullptr, 0);  // touched, same bytes: unchanged
  const TreeChanges changes = copy_changes(repo, copy);
  CHECK(listed(changes) == std::vector<std::string>{"m README.md", "d docs/a.txt", "d docs/b.txt", "a new/deep/file.txt",
                                                    "d src/old.txt"});
  CHECK(changes.bytes == std::string("readme\nmore\n").size() + std::string("new\n").size());
  CHECK(files_digest(repo) != files_digest(copy));
}

TEST_CASE("an overlay's upper directory: additions, copy-ups, whiteouts and opaque directories", "[workspace]") {
  Scratch scratch;
  const std::string lower = scratch.path + "/lower", upper = scratch.path + "/upper";
  make_repository(lower);
  write(upper + "/README.md", "readme\n");                 // copied up (a chmod, say), bytes unchanged
  write(upper + "/src/main.cpp", "int main() { return 1; }\n");  // modified
  write(upper + "/added.txt", "added\n");                  // added
  if (::mknod((upper + "/src/old.txt").c_str(), S_IFCHR | 0000, makedev(0, 0)) != 0) {
    WARN("cannot make a whiteout here (not root): the overlay cases are skipped");
    return;
  }
  fs::create_directories(upper + "/docs");  // an opaque docs/: lower's a.txt and b.txt are gone, b.txt made anew
  write(upper + "/docs/b.txt", "b\n");
  const bool opaque = ::setxattr((upper + "/docs").c_str(), "trusted.overlay.opaque", "y", 1, 0) == 0;
  const TreeChanges changes = overlay_changes(lower, upper);
  if (opaque) {
    CHECK(listed(changes) == std::vector<std::string>{"a added.txt", "d docs/a.txt", "m src/main.cpp", "d src/old.txt"});
  } else {
    CHECK(listed(changes) == std::vector<std::string>{"a added.txt", "m src/main.cpp", "d src/old.txt"});
  }
  CHECK(changes.bytes == std::string("int main() { return 1; }\n").size() + std::string("added\n").size());
}

TEST_CASE("the patch of a change set: whole-file hunks git can apply, binaries named", "[workspace]") {
  Scratch scratch;
  const std::string repo = scratch.path + "/repo", copy = scratch.path + "/copy";
  make_repository(repo);
  copy_tree(repo, copy);
  write(copy + "/README.md", "readme\nmore");  // no newline at the end
  write(copy + "/bin.dat", std::string("a\0b", 3));
  fs::remove(copy + "/src/old.txt");
  write_patch(copy_changes(repo, copy), scratch.path + "/out.patch");
  CHECK(read(scratch.path + "/out.patch") ==
        "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,2 @@\n-readme\n+readme\n+more\n"
        "\\ No newline at end of file\n"
        "diff --git a/bin.dat b/bin.dat\nnew file mode 100644\nBinary files /dev/null and b/bin.dat differ\n"
        "diff --git a/src/old.txt b/src/old.txt\ndeleted file mode 100644\n--- a/src/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-old\n");
}

TEST_CASE("the digest of a tree leaves out .git and changes with any byte, name or executable bit", "[workspace]") {
  Scratch scratch;
  const std::string repo = scratch.path + "/repo";
  make_repository(repo);
  const std::string digest = files_digest(repo);
  CHECK(digest.rfind("files-sha256:", 0) == 0);
  write(repo + "/.git/HEAD", "ref: refs/heads/main\n");
  CHECK(files_digest(repo) == digest);
  ::chmod((repo + "/docs/a.txt").c_str(), 0755);
  const std::string executable = files_digest(repo);
  CHECK(executable != digest);
  ::chmod((repo + "/docs/a.txt").c_str(), 0644);
  CHECK(files_digest(repo) == digest);
  fs::rename(repo + "/docs/a.txt", repo + "/docs/c.txt");
  CHECK(files_digest(repo) != digest);
}

TEST_CASE("bubblewrap's command line: read-only system, hidden homes and Strata's files, the view writable", "[workspace]") {
  Scratch scratch;
  const std::string repo = scratch.path + "/study/repo", state = scratch.path + "/study";
  fs::create_directories(repo);
  fs::create_directories(state + "/bin");
  Confinement c;
  c.bwrap = "/usr/bin/bwrap";
  c.repository = repo;
  c.hidden = {state, "/definitely/missing"};
  c.named = {"/"};                   // never the whole file system writable
  c.named_read_only = {state + "/bin"};
  c.program = state + "/provider.sh";
  c.network_none = true;
  const std::vector<std::string> argv = bwrap_arguments(c, {state + "/provider.sh", "--flag"});
  std::string line;
  for (const auto& word : argv) line += word + " ";
  CHECK(line == "--die-with-parent --unshare-pid --unshare-ipc --unshare-uts --unshare-net --ro-bind / / --proc /proc --dev /dev "
                "--tmpfs /tmp --tmpfs " + state + " --ro-bind " + state + "/bin " + state + "/bin --ro-bind " + state +
                "/provider.sh " + state + "/provider.sh --bind " + repo + " " + repo + " --chdir " + repo + " -- " + state +
                "/provider.sh --flag ");
}

// Issue 33, part 0: a home the provider's allowlist names, holding the whole study, is shown
// writable, but Strata's directories and the repositories inside it are masked again after its
// bind (outermost first), and a named directory that is one of them is never bound at all.
TEST_CASE("bubblewrap's command line: what the environment names never re-opens Strata's files or a repository", "[workspace]") {
  Scratch scratch;
  const std::string home = scratch.path + "/home", study = home + "/study", repo = study + "/repos/r1";
  const std::string other = study + "/repos/r2", ledger_dir = study + "/out", workspaces = ledger_dir + "/l.json.workspaces";
  for (const auto& d : {repo, other, workspaces, home + "/.agent"}) fs::create_directories(d);
  Confinement c;
  c.bwrap = "/usr/bin/bwrap";
  c.repository = repo;
  c.hidden = {home, ledger_dir, study};
  c.named = {home, home + "/.agent", ledger_dir, workspaces + "/x"};
  c.kept_out_trees = {workspaces, repo, other};
  c.kept_out_directories = {ledger_dir, study, study + "/repos"};
  c.program = "/bin/true";
  std::string line;
  for (const auto& word : bwrap_arguments(c, {"/bin/true"})) line += word + " ";
  CHECK(line == "--die-with-parent --unshare-pid --unshare-ipc --unshare-uts --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp "
                "--tmpfs " + home + " --tmpfs " + ledger_dir + " --tmpfs " + study +
                " --bind " + home + " " + home + " --bind " + home + "/.agent " + home + "/.agent --tmpfs " + study +
                " --tmpfs " + ledger_dir + " --tmpfs " + study + "/repos --tmpfs " + workspaces + " --tmpfs " + repo +
                " --tmpfs " + other + " --bind " + repo + " " + repo + " --chdir " + repo + " -- /bin/true ");
}
