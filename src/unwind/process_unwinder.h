// The libdw unwinder of one process: a Dwfl holding the ELF modules of the
// process's mappings, reported as unwinding first meets them, and attached
// to thread callbacks that answer from the sample being unwound (its
// registers, its stack copy, the mapped files).
//
// A module is reported at the load bias its mapping gives it. Before a
// reported module is used again it is checked against the process's current
// mapping at that address; when the mapping changed (an EXEC, a dlclose and
// another dlopen at the same place) the Dwfl is rebuilt and the sample
// unwound again, so libdw never unwinds with a file the process no longer
// maps there.
//
// The frames are those perf's libdw unwinder gives: the sample's pc, then
// each caller's return address minus 1 (inside the call instruction, as perf
// stores them), until libdw finds the outermost frame, fails, or `max_frames`
// are found. Frames after the first failure are never guessed: a frame libdw
// found for a caller of a pc without CFI (its x86_64 frame-pointer fallback)
// is dropped, and the unwinding stops there as "no CFI". One exception, where
// libdw is wrong: on x86-64 it loses a callee-saved %rbx that a frame does
// not mention, and the unwinding resumes past a caller whose CFA needs it
// (RecoverRbx in the .cc), as perf's libunwind unwinds.
//
// Each thread's last unwinding is kept as an UnwindMemo (for the last
// kMemoThreads threads unwound): a sample whose unwinding reaches one of its
// states, with memory that answers its reads alike, takes the frames above
// it over (unwind_memo.h says why they are the frames libdw would find).
// `take_over_frames` false unwinds every frame of every sample.
//
// Not thread-safe: one thread unwinds a process at a time.
#ifndef PERFTK_UNWIND_PROCESS_UNWINDER_H_
#define PERFTK_UNWIND_PROCESS_UNWINDER_H_

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "base/bytes.h"
#include "base/interrupt.h"
#include "machine/maps.h"
#include "unwind/module_files.h"
#include "unwind/registers.h"
#include "unwind/sample_memory.h"
#include "unwind/step_uses.h"
#include "unwind/unwind_memo.h"

namespace perftk::unwind {

// Why unwinding stopped.
enum class UnwindStop {
  kOutermost,         // libdw found the outermost frame: the whole stack
  kDepthLimit,        // max_frames found
  kNoCfi,             // no call frame information for a frame's pc
  kStackTooShort,     // the unwinder needed stack beyond the copy
  kUnknownMap,        // a pc in no mapping, or in a file not found
  kUnrecordedMemory,  // the unwinder needed memory neither the copy nor a file holds
};

struct UnwoundStack {
  std::vector<uint64_t> frames;  // innermost first; empty if nothing was found
  UnwindStop stop = UnwindStop::kOutermost;
  size_t taken_over = 0;  // of the frames, how many an earlier sample's unwinding gave
};

class ProcessUnwinder {
 public:
  ProcessUnwinder(int32_t pid, std::shared_ptr<const machine::Maps> maps, ModuleFiles& files,
                  bool take_over_frames = true);
  ~ProcessUnwinder();
  ProcessUnwinder(const ProcessUnwinder&) = delete;
  ProcessUnwinder& operator=(const ProcessUnwinder&) = delete;

  // The address space this unwinder reads; a process that gets a new one
  // (pid reuse) needs a new unwinder.
  const machine::Maps* maps() const { return maps_.get(); }

  UnwoundStack Unwind(int32_t tid, const InitialRegisters& registers, base::Bytes stack,
                      size_t max_frames);

  // How many times a changed mapping made the Dwfl start over.
  uint64_t rebuilds() const { return rebuilds_; }

 private:
  enum class ModuleState { kReady, kNoMap, kNoFile, kStale };
  struct Reported {
    const machine::Dso* dso = nullptr;
    uint64_t bias = 0;
    base::MappedInputName mapped;  // libdw's mapping of the file, for a SIGBUS message
  };
  // What one Unwind call is working on; the libdw callbacks read it.
  struct Attempt {
    int32_t tid = 0;
    const InitialRegisters* registers = nullptr;
    SampleMemory* memory = nullptr;
    size_t max_frames = 0;
    std::vector<uint64_t> frames;
    ModuleState last_module = ModuleState::kReady;
    bool depth_reached = false;
    bool stale = false;
    // The last frame's pc has no CFI: a next frame would be libdw's guess
    // (its frame-pointer fallback), not an unwinding.
    bool caller_unknown = false;
    bool guess_dropped = false;
    // Whether the last frame found was an activation (the first frame, or
    // one a signal frame interrupted): the next state is not resumable.
    bool last_activation = true;
    const UnwindMemo* previous = nullptr;  // the thread's last unwinding, if usable
    UnwindMemo* memo = nullptr;            // this one's, being written
    // The frames above the last state were taken over from `previous`,
    // which ended this way.
    bool taken_over = false;
    size_t own_states = 0;  // states before the ones taken over
    size_t frames_taken_over = 0;
    UnwindMemo::Ending previous_ending;
    // x86-64 only (see RecoverRbx): the caller's %rbx as the psABI keeps it
    // while libdw loses it, and the state to resume from when the last
    // frame's step needs that %rbx. A resumed run's first frame is the one
    // it resumes, found already.
    std::optional<uint64_t> rbx;
    std::optional<InitialRegisters> resume;
    bool skip_first = false;
    int resumes = 0;
  };
  struct ThreadMemo {
    int32_t tid = 0;
    uint64_t last_use = 0;
    UnwindMemo memo;
  };
  static constexpr size_t kMemoThreads = 8;

  static const Dwfl_Thread_Callbacks kThreadCallbacks;
  static pid_t NextThread(Dwfl* dwfl, void* arg, void** thread_arg);
  static bool MemoryRead(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* result, void* arg);
  static bool SetInitialRegisters(Dwfl_Thread* thread, void* arg);
  static int OnFrame(Dwfl_Frame* frame, void* arg);

  // Adds the state of `frame` to the attempt's memo, or takes the frames
  // above it over from the thread's last unwinding: true then.
  bool RememberOrTakeOver(Attempt& attempt, Dwfl_Frame* frame, uint64_t pc);
  bool TakeOver(Attempt& attempt, size_t state);
  // Empties the row, then reads the `wanted` registers of `frame` into it.
  void FillRow(Dwfl_Frame* frame, const RegisterSet& wanted);
  // Adds the `wanted` registers of `frame` not read yet.
  void AddToRow(Dwfl_Frame* frame, const RegisterSet& wanted);
  // Finds frame_registers_ once; false when the registers libdw answers
  // for are not 0 .. n - 1 with n <= RegisterSet::kMaxRegisters (then no
  // state is resumable).
  bool ProbeRegisters(Dwfl_Frame* frame);
  // Which registers each state of the attempt's own part depends on, from
  // the last one down, now that the unwinding is over.
  void NoteDependencies(const Attempt& attempt);
  ThreadMemo& MemoFor(int32_t tid);

  // One try; attempt.stale says it must be redone on a fresh Dwfl.
  UnwoundStack TryUnwind(Attempt& attempt, base::Bytes stack);
  // Keeps attempt.rbx for the frame found, and when its step needs the %rbx
  // libdw lost, the state to resume from in attempt.resume.
  void RecoverRbx(Attempt& attempt, Dwfl_Frame* frame, const StepUses* step, uint64_t where);
  // Unwinds on from attempt.resume (while there is one); the last result.
  int Resume(Attempt& attempt, int result);
  // Makes sure a current module covers pc, reporting it if needed.
  ModuleState PrepareModule(uint64_t pc);
  bool Overlaps(Dwfl_Module* added) const;
  // What the step from a state at pc reads (its CFI rules, from
  // .eh_frame or else .debug_frame; `described` false when neither describes
  // pc), remembered per pc (the same return addresses come back sample
  // after sample) until the Dwfl is rebuilt; null when no module covers pc.
  // The pointer stays valid until the next Unwind call.
  StepUses* StepAt(uint64_t pc);
  StepUses ModuleStep(Dwfl_Module* module, uint64_t pc) const;
  void Reset();

  const int32_t pid_;
  const std::shared_ptr<const machine::Maps> maps_;
  ModuleFiles& files_;
  machine::MapsCache cache_;
  Dwfl* dwfl_ = nullptr;
  bool attached_ = false;
  absl::flat_hash_map<Dwfl_Module*, Reported> reported_;
  static constexpr size_t kMaxCfiAnswers = 1 << 16;  // then forgotten, and learnt again
  absl::node_hash_map<uint64_t, StepUses> steps_;    // by pc, for the modules reported
  Attempt* attempt_ = nullptr;
  uint64_t rebuilds_ = 0;  // also the epoch of the memos: a rebuild outdates them
  const bool take_over_frames_;
  std::vector<ThreadMemo> memos_;
  uint64_t memo_clock_ = 0;
  UnwindMemo scratch_;         // the memo of the unwinding under way
  std::vector<uint64_t> row_;  // a state's register values
  RegisterSet row_known_;      // which of them were read
  RegisterSet row_set_;        // and which of those are set
  // Per state of the attempt's own part: what stepping from it reads.
  struct OwnState {
    StepUses* step = nullptr;  // null: unknown
    bool found = false;        // its frame was found
    bool activation = false;
  };
  std::vector<OwnState> own_states_;
  // How many DWARF registers libdw answers for (dwfl_frame_reg not -1),
  // found at the first frame: a row holds them all, and StepAt reads their
  // rules.
  size_t frame_registers_ = 0;
  bool registers_probed_ = false;
  bool x86_64_ = false;  // the modules are x86-64 code
  bool rows_possible_ = false;
  // The mapping whose module PrepareModule last found ready: most frames of
  // a sample, and of the next, fall in it.
  std::optional<machine::Map> last_ready_;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_PROCESS_UNWINDER_H_
