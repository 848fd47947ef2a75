// Running a deeply recursive computation (LLVM's demangler recurses once per nesting level of a
// name) where the stack is known to be large enough. No SQLite here.
#pragma once
#include <cstddef>

namespace rocpd::names::detail {

// Calls fn(arg) where at least `stack_bytes` of stack are free: on the calling thread when its
// stack has that much room left below the current frame, else on a helper thread with a stack
// of that size (joined before returning). Returns false, without calling fn, when neither is
// possible (the helper thread could not start). An exception of fn reaches the caller.
bool call_with_stack(std::size_t stack_bytes, void (*fn)(void*), void* arg);

template <class F>
bool call_with_stack(std::size_t stack_bytes, F& body) {
  return call_with_stack(stack_bytes, [](void* f) { (*static_cast<F*>(f))(); }, &body);
}

// Free stack below the caller's frame on this thread; 0 when unknown (a fiber's stack, or the
// thread's bounds cannot be read), so callers then take the helper thread.
std::size_t stack_left() noexcept;

}  // namespace rocpd::names::detail
