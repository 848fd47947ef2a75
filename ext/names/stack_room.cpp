#include "names/stack_room.h"

#include <pthread.h>

#include <cstdint>
#include <exception>

namespace rocpd::names::detail {

namespace {
struct StackBounds {
  std::uintptr_t low = 0, high = 0;
};

// Read once per thread: for the main thread glibc parses /proc/self/maps.
StackBounds current_thread_stack() noexcept {
  StackBounds bounds;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return bounds;
  void* addr = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    bounds.low = reinterpret_cast<std::uintptr_t>(addr);
    bounds.high = bounds.low + size;
  }
  pthread_attr_destroy(&attr);
  return bounds;
}

struct Task {
  void (*fn)(void*);
  void* arg;
  std::exception_ptr error;
};

void* run_task(void* p) {
  auto* task = static_cast<Task*>(p);
  try {
    task->fn(task->arg);
  } catch (...) {
    task->error = std::current_exception();
  }
  return nullptr;
}
}  // namespace

std::size_t stack_left() noexcept {
  thread_local const StackBounds bounds = current_thread_stack();
  // The frame address, not a local's: AddressSanitizer may keep locals on a heap "fake stack".
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (here <= bounds.low || here > bounds.high) return 0;
  return here - bounds.low;
}

bool call_with_stack(std::size_t stack_bytes, void (*fn)(void*), void* arg) {
  if (stack_bytes < stack_left()) {
    fn(arg);
    return true;
  }
  Task task{fn, arg, nullptr};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_t thread;
  const bool started = pthread_attr_setstacksize(&attr, stack_bytes) == 0 &&
                       pthread_create(&thread, &attr, run_task, &task) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return false;
  pthread_join(thread, nullptr);
  if (task.error) std::rethrow_exception(task.error);
  return true;
}

}  // namespace rocpd::names::detail
