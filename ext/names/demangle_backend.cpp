// Backends for demangle(). With LLVM (the default) the name is parsed by LLVM 19's Itanium
// parser (ItaniumDemangle.h, the code behind llvm::itaniumDemangle and llvm-cxxfilt) and
// printed by its printer, with two guards llvm::itaniumDemangle lacks:
//  - the parser recurses once per nesting level, so a name is parsed on a stack sized from its
//    length (a 16 kB "PPPP...i" overflows a 1 MB stack): the caller's if it has room left, else
//    a helper thread's;
//  - back-references can make the output exponential in the input ("_Z1fIPFvvEPFvT_T_E..."
//    of 300 bytes prints gigabytes and aborts in realloc), so the printed size is bounded on
//    the AST (a DAG: memoised sizes) before anything is printed.
#include "names/demangle_backend.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "names/demangle.h"
#include "names/stack_room.h"

#if ROCPD_HAVE_LLVM_DEMANGLE
#include <llvm/Demangle/Demangle.h>
#include <llvm/Demangle/ItaniumDemangle.h>
#endif

namespace rocpd::names {

const char* demangler_backend() noexcept {
#if ROCPD_HAVE_LLVM_DEMANGLE
  return "llvm-" ROCPD_LLVM_MAJOR;
#else
  return "cxa";
#endif
}

namespace detail {
namespace {

// LLVM's parser, the size estimate and the printer each recurse once per nesting level, and a
// level can take a single input byte ("P", "I1A"...E, "ng"). A parse gets kStackMargin plus
// kStackBytesPerInputByte per byte: on the caller's stack when it has that much room left,
// else on a helper thread with a stack that size (virtual memory: only the pages a parse touches
// are used). Measured worst cases (nested P, R, Dp, PF, I..E, N..E, ng): 192 bytes per byte
// with g++ -O2, 384 with -O0. AddressSanitizer's frames are many times larger: up to 6 KiB per
// byte (GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define ROCPD_NAMES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROCPD_NAMES_ASAN 1
#endif
#endif
#ifdef ROCPD_NAMES_ASAN
constexpr std::size_t kStackBytesPerInputByte = 16 * 1024;
#else
constexpr std::size_t kStackBytesPerInputByte = 1024;
#endif
constexpr std::size_t kStackMargin = 256 * 1024;

// Calls `body` where a parse of `input_size` bytes cannot overflow the stack. If no such stack
// can be had, `body` is not called and the name stays undemangled.
template <class F>
void with_enough_stack(std::size_t input_size, F& body) {
  call_with_stack(kStackMargin + input_size * kStackBytesPerInputByte, body);
}

#if ROCPD_HAVE_LLVM_DEMANGLE
namespace itd = llvm::itanium_demangle;

// Bump allocator for the parser's AST (nodes are trivially destructible and die together).
// It also counts nodes, to size the table of PrintedSizeBound.
class Arena {
 public:
  void reset() { blocks_.clear(), used_ = capacity_ = nodes_ = 0; }
  template <class T, class... Args>
  T* makeNode(Args&&... args) {
    ++nodes_;
    return new (allocate(sizeof(T))) T(std::forward<Args>(args)...);
  }
  void* allocateNodeArray(std::size_t n) { return allocate(n * sizeof(itd::Node*)); }
  std::size_t nodes() const { return nodes_; }

 private:
  // Zero-size requests happen (an empty NodeArray, e.g. the parameters of "_ZUlvE_") and must
  // still get a valid pointer: a fresh arena has no block yet.
  void* allocate(std::size_t bytes) {
    bytes = (bytes + 15) & ~std::size_t{15};
    if (blocks_.empty() || used_ + bytes > capacity_) {
      capacity_ = std::max<std::size_t>(bytes, 8 * 1024);
      // Uninitialised storage: zeroing it would cost more than parsing a typical name.
      blocks_.emplace_back(new std::max_align_t[capacity_ / sizeof(std::max_align_t) + 1]);
      used_ = 0;
    }
    void* p = reinterpret_cast<char*>(blocks_.back().get()) + used_;
    used_ += bytes;
    return p;
  }
  std::vector<std::unique_ptr<std::max_align_t[]>> blocks_;
  std::size_t used_ = 0, capacity_ = 0, nodes_ = 0;
};

// An estimate of a node's printed size: its own strings, its children, and a margin for
// punctuation; saturating, so exponential sharing cannot overflow. Sizes are memoised per node
// in an open-addressing table sized from the node count (the AST is a DAG). A pack expansion
// prints its pattern once per pack element (a 10 kB name "f<5000 ints>(void (*)(<5000-byte
// name>, T)...)" prints 25 MB), so it counts as its pattern times the largest pack inside it.
class PrintedSizeBound {
 public:
  explicit PrintedSizeBound(std::size_t nodes) {
    std::size_t slots = 16;
    while (slots < nodes * 2) slots *= 2;
    table_.assign(slots, Slot{});
  }

  std::size_t size_of(const itd::Node* node) { return of(node).size; }

 private:
  struct Estimate {
    std::size_t size = 0;  // printed bytes
    std::size_t pack = 0;  // elements of the largest pack not yet expanded below this node
  };
  struct Slot {
    const itd::Node* node = nullptr;
    Estimate estimate;
  };
  static constexpr std::size_t kSaturated = std::size_t{1} << 60;
  static constexpr std::size_t kPerNode = 16;

  Estimate of(const itd::Node* node) {
    if (node == nullptr) return {};
    if (Slot& slot = find(node); slot.node == node) {
      return slot.estimate;
    } else {
      slot = {node, {kSaturated, 0}};  // a cycle (never expected) counts as too big
    }
    Estimate total{kPerNode, 0};
    bool expands = false;
    node->visit([&](const auto* derived) {
      using D = std::remove_cv_t<std::remove_pointer_t<decltype(derived)>>;
      if constexpr (std::is_same_v<D, itd::ForwardTemplateReference>) {
        add(total, of(derived->Ref));
      } else {
        derived->match([&](const auto&... args) { (add_arg(total, args), ...); });
      }
      expands = std::is_same_v<D, itd::ParameterPackExpansion> || std::is_same_v<D, itd::FoldExpr> ||
                std::is_same_v<D, itd::SizeofParamPackExpr>;
      if constexpr (std::is_same_v<D, itd::ParameterPack> || std::is_same_v<D, itd::TemplateArgumentPack>) {
        total.pack = std::max(total.pack, count_elements(derived));
      }
    });
    if (expands) {
      total.size = multiply(total.size, std::max<std::size_t>(1, total.pack));
      total.pack = 0;
    }
    find(node).estimate = total;
    return total;
  }

  template <class Pack>
  static std::size_t count_elements(const Pack* pack) {
    std::size_t n = 0;
    pack->match([&](const auto&... args) {
      ((n += [](const auto& a) -> std::size_t {
         if constexpr (std::is_same_v<std::remove_cvref_t<decltype(a)>, itd::NodeArray>) return a.size();
         return 0;
       }(args)),
       ...);
    });
    return n;
  }

  Slot& find(const itd::Node* node) {
    std::size_t mask = table_.size() - 1;
    std::size_t i = (reinterpret_cast<std::uintptr_t>(node) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & mask;
    while (table_[i].node != nullptr && table_[i].node != node) i = (i + 1) & mask;
    return table_[i];
  }
  static std::size_t multiply(std::size_t a, std::size_t b) {
    return a != 0 && b > kSaturated / a ? kSaturated : std::min(kSaturated, a * b);
  }
  static void add(Estimate& total, const Estimate& child) {
    total.size = std::min(kSaturated, total.size + child.size);
    total.pack = std::max(total.pack, child.pack);
  }
  template <class T>
  void add_arg(Estimate& total, const T& arg) {
    if constexpr (std::is_convertible_v<T, const itd::Node*>) {
      add(total, of(arg));
    } else if constexpr (std::is_same_v<T, itd::NodeArray>) {
      for (const itd::Node* child : arg) add(total, Estimate{of(child).size + 2, of(child).pack});
    } else if constexpr (std::is_convertible_v<T, std::string_view>) {
      total.size = std::min(kSaturated, total.size + std::string_view(arg).size());
    }
    // Other arguments (qualifiers, kinds, flags, numbers) print in a few bytes: kPerNode.
  }
  std::vector<Slot> table_;
};

std::optional<std::string> parse_and_print(std::string_view mangled) {
  itd::ManglingParser<Arena> parser(mangled.data(), mangled.data() + mangled.size());
  const itd::Node* ast = parser.parse();
  if (ast == nullptr) return std::nullopt;
  if (PrintedSizeBound(parser.ASTAllocator.nodes()).size_of(ast) > kMaxDemangleOutput) return std::nullopt;
  itd::OutputBuffer out;
  ast->print(out);
  std::string text(out.getBuffer(), out.getCurrentPosition());
  std::free(out.getBuffer());
  return text;
}
#endif

}  // namespace

std::optional<std::string> demangle_itanium(std::string_view mangled) {
  if (mangled.size() > kMaxDemangleInput) return std::nullopt;
  std::optional<std::string> result;
#if ROCPD_HAVE_LLVM_DEMANGLE
  auto body = [&] { result = parse_and_print(mangled); };
#else
  auto body = [&] {
    result = demangle_with_cxa(mangled);
    // Same spelling as LLVM for clone suffixes: "f() [clone .isra.0] [clone .cold]" becomes
    // "f() (.isra.0.cold)".
    std::size_t first = result ? result->find(" [clone .") : std::string::npos;
    if (first != std::string::npos) {
      std::string suffixes;
      for (std::size_t at = first; at < result->size();) {
        std::size_t close = result->find(']', at);
        if (!std::string_view(*result).substr(at).starts_with(" [clone .") || close == std::string::npos) {
          suffixes.clear();
          break;
        }
        suffixes += result->substr(at + 8, close - at - 8);
        at = close + 1;
      }
      if (!suffixes.empty()) result->replace(first, std::string::npos, " (" + suffixes + ")");
    }
  };
#endif
  with_enough_stack(mangled.size(), body);
  return result;
}

std::optional<std::string> demangle_with_llvm_library(std::string_view mangled) {
#if ROCPD_HAVE_LLVM_DEMANGLE
  char* text = llvm::itaniumDemangle(mangled);
  if (text == nullptr) return std::nullopt;
  std::string out(text);
  std::free(text);
  return out;
#else
  (void)mangled;
  return std::nullopt;
#endif
}

std::optional<std::string> demangle_with_cxa(std::string_view mangled) {
  // __cxa_demangle reads a C string: a name with an embedded NUL is not a mangling.
  if (mangled.find('\0') != std::string_view::npos) return std::nullopt;
  std::string owned(mangled);
  int status = 0;
  char* text = abi::__cxa_demangle(owned.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) {
    std::free(text);
    return std::nullopt;
  }
  std::string out(text);
  std::free(text);
  return out;
}

}  // namespace detail
}  // namespace rocpd::names
