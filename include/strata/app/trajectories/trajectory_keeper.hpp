#pragma once
// Where `strata run --keep-trajectories DIR` and `strata adjudicate --keep-trajectories DIR` keep
// each execution's trajectory (docs/TRAJECTORIES.md), and the channel it arrives through. Every
// attempt gets a private directory of its own, its file's path in STRATA_TRAJECTORY_FILE; the
// provider adapter writes its ATIF trajectory there (nothing travels in the response: no raw
// output in the ledger). Strata moves it into DIR under the execution's stem, durably, before the
// observation's journal line is written, so a recorded observation always has its trajectory.
// Everything here blocks on the file system: the runs call it on a thread pool.
#include <string>
#include <vector>

namespace strata::app {

// The variable that tells a provider where its attempt's trajectory goes.
inline constexpr const char* kTrajectoryVariable = "STRATA_TRAJECTORY_FILE";

// Where a confined provider sees its channel (bound writable there, in its own /tmp).
inline constexpr const char* kConfinedTrajectoryChannel = "/tmp/strata-trajectory";

class TrajectoryKeeper {
 public:
  // `directory`: DIR (made, 0700, when missing); `incoming_root`: where the channels live;
  // `suffix`: ".trajectory.json" for executions, ".judge.trajectory.json" for their judgements.
  TrajectoryKeeper(const std::string& directory, const std::string& incoming_root, std::string suffix);

  const std::string& directory() const { return directory_; }
  const std::string& incoming_root() const { return incoming_root_; }

  // Makes the channel of one attempt (named by the caller, unique in the run), empty; returns it.
  std::string open_channel(const std::string& attempt) const;

  // The file a provider writes in `channel` (a directory, as the provider sees it).
  static std::string file_in(const std::string& channel);

  // Moves the attempt's trajectory into DIR as `execution_key`'s (fsync of the file and of DIR)
  // and removes the channel. False when the attempt left none, or one over the size bound or
  // not an ATIF trajectory (said on stderr): then DIR holds none for the execution.
  bool keep(const std::string& attempt, const std::string& execution_key) const;

  // Removes an attempt's channel without keeping anything (an earlier or interrupted attempt).
  void close_channel(const std::string& attempt) const;

  // At the start of a run: removes the channels an interrupted run left, and DIR's trajectories
  // of `unrecorded` executions (kept by a run killed before their observation was durable).
  void sweep(const std::vector<std::string>& unrecorded_keys) const;

  // DIR/<execution stem><suffix>.
  std::string path_for(const std::string& execution_key) const;

  // The largest trajectory file taken from a provider: the trajectory's own text bound (4 MiB)
  // with room for its JSON escaping and structure.
  static constexpr std::size_t kMaxFileBytes = 16u * 1024 * 1024;

 private:
  std::string directory_, incoming_root_, suffix_;
};

}  // namespace strata::app
