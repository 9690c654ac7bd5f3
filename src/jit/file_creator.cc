#include "jit/file_creator.h"

#include <fcntl.h>
#include <unistd.h>

#include <system_error>
#include <utility>

namespace perftk::jit {

FileCreator::FileCreator(bool threaded) {
  if (!threaded) return;
  try {
    thread_ = std::thread([this] { CreateUntilStopped(); });
    threaded_ = true;
  } catch (const std::system_error&) {
    // No thread to be had (thread or memory limits): the same work, inline.
  }
}

FileCreator::~FileCreator() {
  if (!threaded_) return;
  {
    base::MutexLock lock(mu_);
    stopping_ = true;
  }
  work_ready_.NotifyOne();
  thread_.join();
  base::MutexLock lock(mu_);
  for (Created& created : created_) {
    if (created.fd >= 0) close(created.fd);
    // created.pending removes the file as it goes.
  }
}

void FileCreator::Request(std::string path) {
  ++requested_;
  if (!threaded_) {
    inline_requests_.push_back(std::move(path));
    return;
  }
  bool wake;
  {
    base::MutexLock lock(mu_);
    requests_.push_back(std::move(path));
    wake = CreatorCanGoOn();
  }
  if (wake) work_ready_.NotifyOne();
}

bool FileCreator::CreatorCanGoOn() const {
  return stopping_ || requests_.size() >= kWakeBatch || (!requests_.empty() && taker_waiting_);
}

bool FileCreator::TakeCanGoOn() const {
  return created_.size() >= kWakeBatch || (!created_.empty() && requests_.empty());
}

absl::StatusOr<base::GeneratedFile> FileCreator::Take() {
  ++taken_;
  if (!threaded_) {
    std::string path = std::move(inline_requests_.front());
    inline_requests_.pop_front();
    return base::GeneratedFile::Create(path);
  }
  Created created;
  {
    base::MutexLock lock(mu_);
    if (created_.empty()) {
      taker_waiting_ = true;
      work_ready_.NotifyOne();  // fewer than kWakeBatch requests may wait
      while (!TakeCanGoOn()) created_ready_.Wait(mu_);
      taker_waiting_ = false;
    }
    created = std::move(created_.front());
    created_.pop_front();
  }
  if (created.fd < 0) return base::GeneratedFile::Create(created.path);
  return base::GeneratedFile(std::move(created.path), created.fd, std::move(created.pending));
}

void FileCreator::CreateUntilStopped() {
  while (true) {
    std::string path;
    {
      base::MutexLock lock(mu_);
      while (!CreatorCanGoOn()) work_ready_.Wait(mu_);
      if (stopping_) return;
      path = std::move(requests_.front());
      requests_.pop_front();
    }
    int fd = -1;
    absl::StatusOr<base::PendingFile> pending = base::PendingFile::CreateNew(path, &fd);
    Created created{std::move(path), fd, pending.ok() ? std::move(*pending) : base::PendingFile()};
    bool wake;
    {
      base::MutexLock lock(mu_);
      created_.push_back(std::move(created));
      wake = taker_waiting_ && TakeCanGoOn();
    }
    if (wake) created_ready_.NotifyOne();
  }
}

}  // namespace perftk::jit
