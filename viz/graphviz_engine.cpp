#include "viz/graphviz_engine.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "core/ir/error.h"

namespace fuserlab::viz {
namespace {

std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// One context for the process, made on first use under the lock: loading
// the plugin configuration costs more than a small layout.
GVC_t* context() {
  static GVC_t* gvc = [] {
    agseterr(AGERR);  // warnings (e.g. about fonts) stay quiet
    return gvContext();
  }();
  return gvc;
}

// A parsed and laid-out graph, freed in the right order.
class LaidOutGraph {
 public:
  explicit LaidOutGraph(const std::string& dot) {
    graph_ = agmemread(dot.c_str());
    FL_ASSERT(graph_ != nullptr, "Graphviz could not parse the DOT text");
    FL_ASSERT(gvLayout(context(), graph_, "dot") == 0, "Graphviz's dot layout failed");
  }
  ~LaidOutGraph() {
    gvFreeLayout(context(), graph_);
    agclose(graph_);
  }
  LaidOutGraph(const LaidOutGraph&) = delete;
  LaidOutGraph& operator=(const LaidOutGraph&) = delete;
  Agraph_t* get() const { return graph_; }

 private:
  Agraph_t* graph_ = nullptr;
};

std::string idOf(void* object, const char* fallback) {
  char* value = agget(object, const_cast<char*>("id"));
  return value != nullptr && *value != '\0' ? value : fallback;
}

// Graphviz: points, origin bottom left, y up. Ours: y down from the top of
// the bounding box, x from its left.
struct Flip {
  boxf bb;
  Point point(pointf p) const { return {p.x - bb.LL.x, bb.UR.y - p.y}; }
  Box box(boxf b) const {
    return {b.LL.x - bb.LL.x, bb.UR.y - b.UR.y, b.UR.x - b.LL.x, b.UR.y - b.LL.y};
  }
  Box centered(pointf center, double width, double height) const {
    Point c = point(center);
    return {c.x - width / 2, c.y - height / 2, width, height};
  }
};

void readClusters(Agraph_t* graph, const Flip& flip, Layout& layout) {
  for (Agraph_t* sub = agfstsubg(graph); sub; sub = agnxtsubg(sub)) {
    const char* name = agnameof(sub);
    if (std::strncmp(name, "cluster", 7) == 0) {
      const char* fallback = std::strncmp(name, "cluster_", 8) == 0 ? name + 8 : name;
      layout.clusters.push_back({idOf(sub, fallback), flip.box(GD_bb(sub))});
    }
    readClusters(sub, flip, layout);
  }
}

Layout readLayout(Agraph_t* graph) {
  Layout layout;
  const Flip flip{GD_bb(graph)};
  layout.width = flip.bb.UR.x - flip.bb.LL.x;
  layout.height = flip.bb.UR.y - flip.bb.LL.y;
  for (Agnode_t* node = agfstnode(graph); node; node = agnxtnode(graph, node)) {
    layout.nodes.push_back(
        {idOf(node, agnameof(node)),
         flip.centered(ND_coord(node), ND_width(node) * 72.0, ND_height(node) * 72.0)});
    for (Agedge_t* e = agfstout(graph, node); e; e = agnxtout(graph, e)) {
      EdgeLayout edge;
      edge.id = idOf(e, "");
      edge.from = idOf(agtail(e), agnameof(agtail(e)));
      edge.to = idOf(aghead(e), agnameof(aghead(e)));
      if (const splines* spl = ED_spl(e)) {
        for (int i = 0; i < spl->size; ++i) {
          const bezier& piece = spl->list[i];
          for (int p = 0; p < piece.size; ++p) {
            edge.points.push_back(flip.point(piece.list[p]));
          }
          if (piece.eflag) {
            edge.hasArrow = true;
            edge.arrowTip = flip.point(piece.ep);
          }
        }
      }
      // An inline label, or an external one (see DotOptions).
      for (const textlabel_t* label : {ED_label(e), ED_xlabel(e)}) {
        if (label && label->set && !edge.hasLabel) {
          edge.hasLabel = true;
          edge.labelBox = flip.centered(label->pos, label->dimen.x, label->dimen.y);
        }
      }
      layout.edges.push_back(std::move(edge));
    }
  }
  readClusters(graph, flip, layout);
  return layout;
}

}  // namespace

Layout layoutDotText(const std::string& dot) {
  std::lock_guard lock(graphvizMutex());
  context();
  LaidOutGraph graph(dot);
  return readLayout(graph.get());
}

std::string renderDotText(const std::string& dot, const std::string& format) {
  std::lock_guard lock(graphvizMutex());
  context();
  LaidOutGraph graph(dot);
  char* data = nullptr;
  unsigned int length = 0;
  const int status = gvRenderData(context(), graph.get(), format.c_str(), &data, &length);
  std::unique_ptr<char, void (*)(char*)> owned(data, [](char* p) {
    if (p) gvFreeRenderData(p);
  });
  FL_CHECK(status == 0 && data != nullptr, "Graphviz on this machine cannot render '", format,
           "' (is its cairo plugin installed? Debian: libgvc6 and graphviz)");
  return std::string(data, length);
}

}  // namespace fuserlab::viz
