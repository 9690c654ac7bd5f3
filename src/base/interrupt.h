// What happens when a run is interrupted or its reader goes away.
//
// InstallInterruptHandling (call once, first thing in main, before any
// thread starts) blocks SIGINT, SIGTERM and SIGHUP in every thread and
// starts one thread that waits for them. When one arrives, that thread
// removes every file the run has pending (pending_file.h), with the list's
// lock held for good so that nothing new is created, and then ends the
// process by the same signal: the shell sees status 128 + signal, and no
// temporary or half-written file is left.
//
// SIGPIPE is ignored: a write to a closed pipe fails with EPIPE, which the
// writer reports as an error (exit status 1) after the same clean-up a
// failed run does.
#ifndef PERFTK_BASE_INTERRUPT_H_
#define PERFTK_BASE_INTERRUPT_H_

namespace perftk::base {

void InstallInterruptHandling();

}  // namespace perftk::base

#endif  // PERFTK_BASE_INTERRUPT_H_
