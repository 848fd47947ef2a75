#include "critical_path/member_paths.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace rocpd::critical_path {
namespace {

class Summarizer {
 public:
  Summarizer(Graph& g, const PathsRequest& request, members::InterruptWatch& watch, bool host_thread)
      : g_(g), request_(request), watch_(watch), host_thread_(host_thread) {}

  MemberPaths run() {
    out_.steps = g_.steps;
    out_.step_entry.assign(g_.steps.size(), -1);
    out_.arrival_entry.assign(g_.arrival.size(), -1);
    out_.collectives = g_.collectives;
    out_.families = g_.families;
    out_.collective_place.assign(g_.arrival.size(), kNone);
    out_.collective_name.assign(g_.arrival.size(), kNone);
    out_.collective_scaled.assign(g_.arrival.size(), 0);
    for (size_t o = 0; o < g_.ops.size(); ++o) {
      const GpuOp& op = g_.ops[o];
      if (op.collective < 0) continue;
      const auto r = static_cast<size_t>(op.collective);
      out_.collective_place[r] = place(kNone, op.lane);
      out_.collective_name[r] = op.name;
      out_.collective_scaled[r] = op.scaled;
    }
    for (size_t s = 0; s < g_.steps.size(); ++s) step_place(s);
    count_inferred();
    if (!request_.matrices) {  // only the what-if's windows need the order and every node's edges
      g_.order = {};
      g_.pred_begin = {};
    }
    if (request_.walk) walk_all();
    if (request_.matrices) matrices();
    out_.cells = std::move(g_.cells);
    out_.names = std::move(g_.names);
    return std::move(out_);
  }

 private:
  void tick() {
    if ((++ticks_ & 0xfff) == 0 && (host_thread_ ? watch_.poll() : watch_.stopped())) members::InterruptWatch::raise();
  }

  uint32_t place(uint32_t thread, uint32_t lane) {
    auto [it, added] = places_.try_emplace({thread, lane}, static_cast<uint32_t>(out_.places.size()));
    if (added) {
      Place p;
      if (thread != kNone) {
        p.pid = g_.proc_pid[g_.threads[thread].first];
        p.tid = g_.threads[thread].second;
      }
      if (lane != kNone) {
        p.pid = g_.proc_pid[g_.lanes[lane].first];
        p.gpu = g_.lanes[lane].second[0];
        p.queue = g_.lanes[lane].second[1];
        p.stream = g_.lanes[lane].second[2];
      }
      out_.places.push_back(p);
    }
    return it->second;
  }
  void step_place(size_t s) { out_.steps[s].place = place(g_.steps[s].place, kNone); }

  // The place of a node itself: its thread, or its op's lane.
  uint32_t node_place(uint32_t v) {
    if (g_.is_op_node(v)) return place(kNone, g_.ops[(v - g_.op_base()) / 2].lane);
    return place(g_.cpu[v / 2].thread, kNone);
  }

  uint32_t attribution(const Attribution& a) {
    auto [it, added] = attributions_.try_emplace(a.key(), static_cast<uint32_t>(out_.attributions.size()));
    if (added) out_.attributions.push_back(a);
    return it->second;
  }

  Entry attribute(uint32_t v, const Edge& e) {
    Attribution en;
    const uint32_t owner = g_.owner(e);
    switch (e.cls()) {
      case EdgeClass::Chain:
        if (owner == kNone) {
          en.kind = Kind::IdleGap;
          en.place = node_place(v);
        } else {
          const CpuEvent& c = g_.cpu[owner];
          en.kind = c.type == CpuType::Launch ? Kind::Launch : c.type == CpuType::Sync ? Kind::SyncWait : Kind::CpuOp;
          en.place = place(c.thread, kNone);
          en.name = c.name;
        }
        break;
      case EdgeClass::Launch: {
        const CpuEvent& c = g_.cpu[owner];
        en.kind = Kind::Launch;
        en.place = place(c.thread, g_.ops[(v - g_.op_base()) / 2].lane);
        en.name = c.name;
        break;
      }
      case EdgeClass::Stream:
        en.kind = Kind::IdleGap;
        en.place = place(kNone, owner);
        break;
      case EdgeClass::Sync:
      case EdgeClass::GpuWait: {
        const CpuEvent& c = g_.cpu[owner];
        en.kind = e.cls() == EdgeClass::Sync ? Kind::SyncWait : Kind::GpuWait;
        en.place = place(c.thread, kNone);
        en.name = c.name;
        en.waited = g_.ops[(e.u - g_.op_base()) / 2].name;
        en.inferred = e.inferred();
        break;
      }
      case EdgeClass::StreamWait: {
        const GpuOp& op = g_.ops[owner];
        en.kind = Kind::StreamWait;
        en.place = place(kNone, op.lane);
        en.name = op.name;
        en.waited = g_.ops[(e.u - g_.op_base()) / 2].name;
        en.inferred = e.inferred();
        break;
      }
      case EdgeClass::Duration: {
        const GpuOp& op = g_.ops[owner];
        en.kind = op.kind;
        en.place = place(kNone, op.lane);
        en.name = op.name;
        break;
      }
    }
    Entry out;
    out.to = g_.time(v);
    out.attribution = attribution(en);
    return out;
  }

  Entry terminal(uint32_t v) {
    Attribution a;
    a.kind = Kind::IdleGap;
    a.place = node_place(v);
    Entry en;
    en.to = g_.time(v);
    en.next = -1;
    en.attribution = attribution(a);
    return en;
  }

  // Per step, the edges inferred from the timing into its process's nodes inside it.
  void count_inferred() {
    std::vector<std::vector<uint32_t>> steps_of(g_.proc_pid.size());  // per process, by start
    for (uint32_t s = 0; s < g_.steps.size(); ++s) steps_of[g_.steps[s].proc].push_back(s);
    for (uint32_t v = 0; v < g_.nodes(); ++v) {
      tick();
      for (uint32_t i = g_.pred_begin[v]; i < g_.pred_begin[v + 1]; ++i) {
        if (!g_.preds[i].inferred() || !g_.preds[i].live()) continue;
        const auto& list = steps_of[g_.proc_of(v)];
        auto it = std::upper_bound(list.begin(), list.end(), g_.time(v),
                                   [&](int64_t t, uint32_t s) { return t < g_.steps[s].start; });
        // Steps of a process may overlap (nested ranges of a pattern): every one holding the node counts it.
        while (it != list.begin()) {
          --it;
          if (g_.steps[*it].end >= g_.time(v)) ++out_.steps[*it].inferred;
        }
      }
    }
  }

  // The start of the step before the one of process p holding time t (INT64_MIN: none).
  int64_t clip_for(uint32_t p, int64_t t) const {
    const auto& starts = step_starts_[p];
    auto it = std::upper_bound(starts.begin(), starts.end(), t);  // first step starting after t
    const auto holding = it - starts.begin() - 1;                 // the step holding t (or -1)
    if (holding <= 0) return INT64_MIN;
    return starts[static_cast<size_t>(holding - 1)];
  }

  // Walks back from node a along binding edges until a cut, a root, a node walked before, or the
  // clip; returns a's entry.
  int32_t walk(uint32_t a, int64_t clip) {
    if (visited_[a] >= 0) return visited_[a];
    auto cur = static_cast<int32_t>(out_.entries.size());
    out_.entries.emplace_back();
    visited_[a] = cur;
    const int32_t first = cur;
    uint32_t v = a;
    for (;;) {
      tick();
      if (g_.time(v) <= clip || g_.bind[v] < 0) {
        out_.entries[static_cast<size_t>(cur)] = terminal(v);
        break;
      }
      const Edge& e = g_.preds[static_cast<size_t>(g_.bind[v])];
      Entry en = attribute(v, e);
      const uint32_t u = e.u;
      if (g_.cut(u) >= 0) {
        en.next = -2 - g_.cut(u);
        out_.entries[static_cast<size_t>(cur)] = en;
        break;
      }
      if (visited_[u] >= 0) {
        en.next = visited_[u];
        out_.entries[static_cast<size_t>(cur)] = en;
        break;
      }
      const auto next = static_cast<int32_t>(out_.entries.size());
      en.next = next;
      out_.entries[static_cast<size_t>(cur)] = en;
      out_.entries.emplace_back();
      visited_[u] = next;
      cur = next;
      v = u;
    }
    return first;
  }

  void walk_all() {
    step_starts_.assign(g_.proc_pid.size(), {});
    for (const MemberStep& s : g_.steps) step_starts_[s.proc].push_back(s.start);
    visited_.assign(g_.nodes(), -1);
    // Each node walked once at most: no copy of the entries while they grow (untouched capacity
    // takes no memory).
    out_.entries.reserve(g_.nodes() + 1);
    // Anchors with the deepest limit first: a walk stopped at its limit never cuts short a later
    // walk that may go further back.
    struct Anchor {
      int64_t clip;
      uint32_t node;
      int32_t step, row;  // what it is the anchor of (-1: not that)
    };
    std::vector<Anchor> anchors;
    for (size_t s = 0; s < g_.steps.size(); ++s) {
      const MemberStep& st = g_.steps[s];
      const auto& starts = step_starts_[st.proc];
      const int64_t clip = st.index == 0 ? INT64_MIN : starts[static_cast<size_t>(st.index - 1)];
      anchors.push_back({clip, st.end_node, static_cast<int32_t>(s), -1});
    }
    for (size_t r = 0; r < g_.arrival.size(); ++r)
      if (g_.arrival[r] >= 0) {
        const auto node = static_cast<uint32_t>(g_.arrival[r]);
        anchors.push_back({clip_for(g_.proc_of(node), g_.time(node)), node, -1, static_cast<int32_t>(r)});
      }
    std::stable_sort(anchors.begin(), anchors.end(), [](const Anchor& a, const Anchor& b) { return a.clip < b.clip; });
    for (const Anchor& a : anchors) {
      const int32_t entry = walk(a.node, a.clip);
      if (a.step >= 0) out_.step_entry[static_cast<size_t>(a.step)] = entry;
      else out_.arrival_entry[static_cast<size_t>(a.row)] = entry;
    }
    visited_ = {};
  }

  // The what-if's matrices: one longest-path pass per window from its fixed sources, and one from
  // each of its inputs.
  void matrices() {
    out_.matrices.resize(g_.steps.size());
    BigVector<int32_t> slot(g_.nodes(), -1);
    std::map<uint32_t, uint32_t> row_of_arrival;  // arrival node -> collective row
    for (size_t r = 0; r < g_.arrival.size(); ++r)
      if (g_.arrival[r] >= 0) row_of_arrival.emplace(static_cast<uint32_t>(g_.arrival[r]), static_cast<uint32_t>(r));
    for (size_t s = 0; s < g_.steps.size(); ++s) {
      const MemberStep& st = g_.steps[s];
      StepMatrix& mx = out_.matrices[s];
      // The window: the process's nodes with start <= t <= end, in topological order.
      std::vector<uint32_t> nodes;
      auto lo = std::partition_point(g_.order.begin(), g_.order.end(), [&](uint32_t v) { return g_.time(v) < st.start; });
      for (auto it = lo; it != g_.order.end() && g_.time(*it) <= st.end; ++it) {
        const uint32_t v = *it;
        if (g_.proc_of(v) != st.proc) continue;
        slot[v] = static_cast<int32_t>(nodes.size());
        nodes.push_back(v);
      }
      std::vector<uint32_t> input_nodes, output_nodes;
      for (uint32_t v : nodes) {
        if (g_.cut(v) >= 0) {
          mx.inputs.push_back(static_cast<uint32_t>(g_.cut(v)));
          input_nodes.push_back(v);
        }
        if (auto it = row_of_arrival.find(v); it != row_of_arrival.end()) {
          mx.outputs.push_back(it->second);
          output_nodes.push_back(v);
        }
        if (g_.is_op_node(v)) {
          const GpuOp& op = g_.ops[(v - g_.op_base()) / 2];
          if ((v - g_.op_base()) % 2 == 0 && op.scaled) ++mx.matches;
        } else if (v % 2 == 0 && g_.cpu[v / 2].scaled) {
          ++mx.matches;
        }
      }
      output_nodes.push_back(st.end_node);
      const size_t outs = output_nodes.size();
      mx.base.assign(outs, kNeg);
      mx.d.assign(outs * mx.inputs.size(), kNeg);
      std::vector<int64_t> val(nodes.size());
      for (size_t pass = 0; pass <= mx.inputs.size(); ++pass) {
        const bool base = pass == 0;
        const uint32_t input = base ? kNone : input_nodes[pass - 1];
        for (size_t k = 0; k < nodes.size(); ++k) {
          tick();
          const uint32_t v = nodes[k];
          if (g_.cut(v) >= 0) {
            val[k] = v == input ? 0 : kNeg;
            continue;
          }
          int64_t best = kNeg;
          bool any = false;
          for (uint32_t i = g_.pred_begin[v]; i < g_.pred_begin[v + 1]; ++i) {
            const Edge& e = g_.preds[i];
            if (!e.live()) continue;
            any = true;
            const int32_t su = slot[e.u];
            const int64_t from = su >= 0 ? val[static_cast<size_t>(su)] : base ? g_.time(e.u) : kNeg;
            if (from == kNeg) continue;
            best = std::max(best, saturated_add(from, g_.lag(v, i, request_.factor)));
          }
          if (!any) best = base ? g_.time(v) : kNeg;
          val[k] = best;
        }
        for (size_t o = 0; o < outs; ++o) {
          const int32_t so = slot[output_nodes[o]];
          const int64_t value = so >= 0 ? val[static_cast<size_t>(so)] : kNeg;
          if (base) mx.base[o] = value;
          else mx.d[o * mx.inputs.size() + (pass - 1)] = value;
        }
      }
      for (uint32_t v : nodes) slot[v] = -1;
    }
  }

  Graph& g_;
  const PathsRequest& request_;
  members::InterruptWatch& watch_;
  bool host_thread_;
  MemberPaths out_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> places_;
  std::map<decltype(Attribution{}.key()), uint32_t> attributions_;
  std::vector<std::vector<int64_t>> step_starts_;
  BigVector<int32_t> visited_;
  uint64_t ticks_ = 0;
};

}  // namespace

MemberPaths member_paths(Graph&& g, const PathsRequest& request, members::InterruptWatch& watch, bool host_thread) {
  Graph graph = std::move(g);
  return Summarizer(graph, request, watch, host_thread).run();
}

}  // namespace rocpd::critical_path
