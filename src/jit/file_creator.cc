#include "jit/file_creator.h"

#include <fcntl.h>
#include <unistd.h>

#include <system_error>
#include <utility>

#include "elf/jit_elf_writer.h"

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
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (Created& created : created_) {
    if (created.fd < 0) continue;
    close(created.fd);
    unlink(created.path.c_str());
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
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(path));
    wake = CreatorCanGoOn();
  }
  if (wake) work_ready_.notify_one();
}

bool FileCreator::CreatorCanGoOn() const {
  return stopping_ || requests_.size() >= kWakeBatch || (!requests_.empty() && taker_waiting_);
}

bool FileCreator::TakeCanGoOn() const {
  return created_.size() >= kWakeBatch || (!created_.empty() && requests_.empty());
}

absl::StatusOr<int> FileCreator::Take() {
  ++taken_;
  if (!threaded_) {
    std::string path = std::move(inline_requests_.front());
    inline_requests_.pop_front();
    return elf::CreateForWriting(path);
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (created_.empty()) {
    taker_waiting_ = true;
    work_ready_.notify_one();  // fewer than kWakeBatch requests may wait
    created_ready_.wait(lock, [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return TakeCanGoOn(); });
    taker_waiting_ = false;
  }
  Created created = std::move(created_.front());
  created_.pop_front();
  lock.unlock();
  if (created.fd < 0) return elf::CreateForWriting(created.path);
  return created.fd;
}

void FileCreator::CreateUntilStopped() {
  while (true) {
    std::string path;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_ready_.wait(lock, [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return CreatorCanGoOn(); });
      if (stopping_) return;
      path = std::move(requests_.front());
      requests_.pop_front();
    }
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    Created created{std::move(path), fd};
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      created_.push_back(std::move(created));
      wake = taker_waiting_ && TakeCanGoOn();
    }
    if (wake) created_ready_.notify_one();
  }
}

}  // namespace perftk::jit
