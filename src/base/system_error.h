// The words for a failed system call's errno, as perftk's messages say them.
#ifndef PERFTK_BASE_SYSTEM_ERROR_H_
#define PERFTK_BASE_SYSTEM_ERROR_H_

#include <string>

namespace perftk::base {

// strerror(error), and for EMFILE and ENFILE (too many open files) what to
// do about it: raise `ulimit -n`, or lower --jobs.
std::string SystemErrorText(int error);

}  // namespace perftk::base

#endif  // PERFTK_BASE_SYSTEM_ERROR_H_
