// The start of a JSON file, read with RapidJSON's SAX reader until its outline says whether it is
// a Chrome-trace document; see json_sniff.h.
#include "members/json_sniff.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "formats/kineto/kineto_json_stream.h"

namespace rocpd::members {

namespace {

// How far a document is read to find its traceEvents: Kineto writes a few kB of metadata first.
constexpr size_t kSniffBytes = size_t{64} << 20;

// Follows the document's outline until it is known to be a trace (or not), then stops the parse.
struct Sniffer : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Sniffer> {
  enum class Top { None, Array, Object } top = Top::None;
  int depth = 0;                // of the value being read (1: the document's own members)
  bool events_key = false;      // the value at depth 1 to come is traceEvents
  bool decided = false;
  bool empty_array = false;
  std::string refusal;          // "" once decided: a trace

  bool decide(std::string why) {
    decided = true;
    refusal = std::move(why);
    return false;  // stops the parse
  }
  // A scalar, or the start of a container, at the current depth.
  bool value(const char* what, bool container) {
    if (depth == 0) return decide(fmt::format("its document is {}, not an object or an array", what));
    if (depth == 1 && top == Top::Array)
      return container && std::strcmp(what, "an object") == 0
                 ? decide({})
                 : decide(fmt::format("an array whose first element is {}, not an event object", what));
    if (depth == 1 && events_key) {
      if (std::strcmp(what, "an array") == 0) return decide({});
      return decide(fmt::format("its traceEvents is {}, not an array", what));
    }
    return true;
  }
  bool Default() { return value("a scalar", false); }
  bool String(const char*, rapidjson::SizeType, bool) { return value("a string", false); }
  bool StartObject() {
    if (depth == 0) top = Top::Object;
    else if (!value("an object", true)) return false;
    ++depth;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (depth == 1) events_key = std::string_view(s, n) == "traceEvents";
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (--depth == 0) return decide("an object without traceEvents");
    return true;
  }
  bool StartArray() {
    if (depth == 0) top = Top::Array;
    else if (!value("an array", true)) return false;
    ++depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    if (--depth == 0) {
      empty_array = true;
      return decide("an empty array (no trace events)");
    }
    return true;
  }
};

}  // namespace

JsonSniff sniff_json_trace_file(const std::string& path) {
  JsonSniff out;
  auto refused = [&](std::string why) {
    out.why = std::move(why);
    return out;
  };
  try {
    const formats::kineto::JsonByteStream* stream = nullptr;
    formats::kineto::JsonByteStream in(path, [&stream] { return !stream || stream->Tell() < kSniffBytes; });
    stream = &in;
    Sniffer sniffer;
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag |
                 rapidjson::kParseNanAndInfFlag>(in, sniffer);
    if (sniffer.decided) {
      out.trace = sniffer.refusal.empty();
      out.empty_array = sniffer.empty_array;
      return refused(std::move(sniffer.refusal));
    }
    if (in.stopped()) return refused(fmt::format("no traceEvents in its first {} MiB", kSniffBytes >> 20));
    if (!in.error().empty()) return refused(fmt::format("cannot be read: {}", in.error()));
    return refused(fmt::format("not JSON ({} at byte {})", rapidjson::GetParseError_En(reader.GetParseErrorCode()),
                               reader.GetErrorOffset()));
  } catch (const std::exception& e) {
    return refused(fmt::format("cannot be read: {}", e.what()));
  }
}

}  // namespace rocpd::members
