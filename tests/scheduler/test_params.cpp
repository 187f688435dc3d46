// The params structs as data: JSON both ways (every field, and a UserError
// naming the field for a missing, ill-typed, out-of-range or unknown one),
// nvFuser-style dumps, and hashes that never change between runs (the
// expected values were computed independently: FNV-1a 64 over the tag, a
// zero byte, and each field as 8 little-endian bytes). Also the JSON reader
// the params read from.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "core/ir/error.h"
#include "core/report/json.h"
#include "core/scheduler/heuristic_params.h"

namespace fuserlab::scheduler {
namespace {

using report::Json;

std::string userErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

// The JSON text of `json` with member `key` replaced by `value` (a JSON
// text) or removed (empty `value`).
Json withMember(const Json& json, const std::string& key, const std::string& value) {
  Json out = Json::object();
  for (const auto& [k, v] : json.members()) {
    if (k != key) {
      out.set(k, v);
    } else if (!value.empty()) {
      out.set(k, Json::parse(value));
    }
  }
  return out;
}

PointwiseParams samplePointwise() {
  PointwiseParams p;
  p.vectorizationFactor = 8;
  p.unrollFactorInner = 2;
  p.unrollFactorOuter = 1;
  p.breakPoint = 1;
  p.blockDimX = 64;
  p.blockDimY = 2;
  p.flipGrid = true;
  p.useInt32Indexing = false;
  return p;
}

ReductionParams samplePersistent() {
  ReductionParams p;
  p.fastestDimReduction = true;
  p.persistentKernel = true;
  p.projectPersistentBuffers = true;
  p.persistentStorage = PersistentStorage::SharedMemory;
  p.vectorizationFactor = 8;
  p.persistentBatchSize = 5;
  p.unrollFactorReduction = 1;
  p.unrollFactorIteration = 2;
  p.blockDimX = 256;
  p.blockDimY = 1;
  p.gridDimX = 128;
  p.gridDimY = 1;
  p.crossBlockReduction = true;
  p.crossGridReduction = false;
  p.registerCap = 128;
  p.useInt32Indexing = true;
  return p;
}

TransposeParams sampleTranspose() {
  TransposeParams p;
  p.tileSize1 = 64;
  p.tileSize2 = 16;
  p.vectorizationFactor1 = 4;
  p.vectorizationFactor2 = 2;
  p.blockDim = 256;
  p.useInt32Indexing = false;
  return p;
}

TEST(JsonTest, ParsesEveryKindOfValue) {
  const Json json = Json::parse(
      " {\"a\": [1, -2, 3.5, 1e3, true, false, null],\n"
      "  \"s\": \"q\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\", \"o\": {}, \"e\": []} ");
  ASSERT_TRUE(json.isObject());
  const auto& a = json.get("a")->items();
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(a[0].asInt(), 1);
  EXPECT_EQ(a[1].asInt(), -2);
  EXPECT_FALSE(a[2].isInt());
  EXPECT_DOUBLE_EQ(a[2].asDouble(), 3.5);
  EXPECT_DOUBLE_EQ(a[3].asDouble(), 1000.0);
  EXPECT_TRUE(a[4].asBool());
  EXPECT_FALSE(a[5].asBool());
  EXPECT_TRUE(a[6].isNull());
  EXPECT_EQ(json.get("s")->asString(), "q\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(json.get("o")->isObject());
  EXPECT_TRUE(json.get("e")->items().empty());
  EXPECT_EQ(json.get("missing"), nullptr);
  // A number too large for 64 bits stays a number.
  EXPECT_FALSE(Json::parse("18446744073709551616").isInt());
  EXPECT_EQ(Json::parse("-9223372036854775808").asInt(), INT64_MIN);
}

TEST(JsonTest, DumpReadsBackTheSame) {
  Json json = Json::object();
  json.set("name", "tab\there \"quoted\"");
  json.set("values", Json::arrayOf(std::vector<int64_t>{1, 2, 3}));
  json.set("ratio", 0.1);
  json.set("nested", Json::object().set("flag", true).set("none", Json()));
  EXPECT_EQ(Json::parse(json.dump()), json);
  EXPECT_EQ(Json::parse(json.dump(-1)), json);
  EXPECT_EQ(Json::parse(json.dump()).dump(), json.dump());
}

TEST(JsonTest, MalformedTextIsAUserErrorWithThePosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"a\": 1,\n \"b\" 2}", "line 2, column 6: expected ':'"},
      {"[1, 2", "expected ',' or ']' after an array element, found the end"},
      {"{\"a\": tru}", "line 1, column 7: expected a value"},
      {"01", "expected the end of the text, found '1'"},
      {"\"abc", "expected '\"' to close the string"},
      {"{\"a\": 1, \"a\": 2}", "\"a\" is repeated"},
      {"[1.]", "expected a digit after '.'"},
      {"\"\\x\"", "expected an escape"},
      {"", "expected a value"},
      {std::string(300, '['), "nested at most 256 levels"},
  };
  for (const auto& c : cases) {
    // Named, not a structured binding: a lambda may not capture one (C++17).
    const std::string& text = c.first;
    const std::string error = userErrorOf([&] { Json::parse(text); });
    EXPECT_NE(error.find("malformed JSON"), std::string::npos) << text;
    EXPECT_NE(error.find(c.second), std::string::npos) << text << " -> " << error;
  }
}

TEST(JsonTest, TypedAccessNamesTheTypes) {
  EXPECT_NE(userErrorOf([] {
              Json::parse("\"8\"").asInt();
            }).find("expected an integer, found a JSON string"),
            std::string::npos);
  EXPECT_NE(userErrorOf([] { Json::parse("8.5").asInt(); }).find("found a JSON number (8.5)"),
            std::string::npos);
  EXPECT_NE(userErrorOf([] {
              Json::parse("[]").members();
            }).find("expected an object, found a JSON array"),
            std::string::npos);
}

TEST(ParamsTest, PointwiseJsonRoundTrip) {
  const PointwiseParams params = samplePointwise();
  const Json json = params.toJson();
  EXPECT_EQ(json.get("vectorization_factor")->asInt(), 8);
  EXPECT_EQ(json.get("break_point")->asInt(), 1);
  EXPECT_TRUE(json.get("flip_grid")->asBool());
  EXPECT_EQ(PointwiseParams::fromJson(Json::parse(json.dump())), params);
  EXPECT_EQ(PointwiseParams::fromJson(PointwiseParams().toJson()), PointwiseParams());
}

TEST(ParamsTest, ReductionJsonRoundTrip) {
  const ReductionParams params = samplePersistent();
  const Json json = params.toJson();
  EXPECT_EQ(json.get("persistent_storage")->asString(), "shared_memory");
  EXPECT_TRUE(json.get("project_persistent_buffers")->asBool());
  EXPECT_EQ(json.get("persistent_batch_size")->asInt(), 5);
  EXPECT_EQ(ReductionParams::fromJson(Json::parse(json.dump())), params);
  EXPECT_EQ(ReductionParams().toJson().get("persistent_storage")->asString(), "registers");
  EXPECT_EQ(ReductionParams::fromJson(ReductionParams().toJson()), ReductionParams());
  // cluster_reduction came after schema version 1: params stored without it
  // (a database, a tuning log) still read, as false, with the same hash.
  ReductionParams cluster;
  cluster.fastestDimReduction = false;
  cluster.gridDimY = 8;
  cluster.crossGridReduction = true;
  cluster.clusterReduction = true;
  EXPECT_TRUE(cluster.toJson().get("cluster_reduction")->asBool());
  EXPECT_EQ(ReductionParams::fromJson(cluster.toJson()), cluster);
  const ReductionParams old =
      ReductionParams::fromJson(withMember(params.toJson(), "cluster_reduction", ""));
  EXPECT_EQ(old, params);
  EXPECT_EQ(old.hash(), params.hash());
  EXPECT_NE(cluster.hash(), [&] {
    ReductionParams p = cluster;
    p.clusterReduction = false;
    return p.hash();
  }());
}

TEST(ParamsTest, TransposeJsonRoundTrip) {
  const TransposeParams params = sampleTranspose();
  const Json json = params.toJson();
  EXPECT_EQ(json.get("tile_size1")->asInt(), 64);
  EXPECT_EQ(json.get("vectorization_factor2")->asInt(), 2);
  EXPECT_EQ(TransposeParams::fromJson(Json::parse(json.dump())), params);
}

TEST(ParamsTest, FromJsonNamesTheBadField) {
  const Json pointwise = samplePointwise().toJson();
  const Json reduction = samplePersistent().toJson();
  struct Case {
    std::function<void()> read;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[&] { PointwiseParams::fromJson(withMember(pointwise, "vectorization_factor", "")); },
       "pointwise params: field \"vectorization_factor\" is missing"},
      {[&] { PointwiseParams::fromJson(withMember(pointwise, "block_dim_x", "\"128\"")); },
       "field \"block_dim_x\" must be an integer, found a JSON string (\"128\")"},
      {[&] { PointwiseParams::fromJson(withMember(pointwise, "vectorization_factor", "0")); },
       "field \"vectorization_factor\" must be at least 1, found 0"},
      {[&] { PointwiseParams::fromJson(withMember(pointwise, "flip_grid", "1")); },
       "field \"flip_grid\" must be true or false, found a JSON integer (1)"},
      {[&] { ReductionParams::fromJson(withMember(reduction, "persistent_storage", "\"hbm\"")); },
       "reduction params: field \"persistent_storage\" must be one of "
       "\"registers\", \"shared_memory\", \"reload\", found \"hbm\""},
      {[&] {
         Json typo = pointwise;
         typo.set("vectorisation_factor", 4);
         PointwiseParams::fromJson(typo);
       },
       "pointwise params: unknown field \"vectorisation_factor\""},
      {[&] { PointwiseParams::fromJson(withMember(pointwise, "schema_version", "2")); },
       "schema_version 2 is not the version this build reads (1)"},
      {[&] { TransposeParams::fromJson(Json::parse("[]")); },
       "transpose params: expected a JSON object, found a JSON array"},
      {[&] { PointwiseParams::fromJson(reduction); },
       "pointwise params: field \"unroll_factor_inner\" is missing"},
  };
  for (const Case& c : cases) {
    const std::string error = userErrorOf(c.read);
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "expected: " << c.message << "\n   found: " << error;
  }
  // schema_version may be left out.
  EXPECT_EQ(PointwiseParams::fromJson(withMember(pointwise, "schema_version", "")),
            samplePointwise());
}

TEST(ParamsTest, HashesAreStableAcrossRuns) {
  EXPECT_EQ(PointwiseParams().hash(), 0xa130b13225534bcbull);
  EXPECT_EQ(samplePointwise().hash(), 0xb25efeb3ff93fa43ull);
  EXPECT_EQ(ReductionParams().hash(), 0xf25ad44dc229ca16ull);
  EXPECT_EQ(TransposeParams().hash(), 0x6cc4c072e0804c60ull);
  EXPECT_EQ(paramsHash(std::monostate{}), 0x7394cd71d5fc4001ull);
  EXPECT_EQ(paramsHash(samplePointwise()), samplePointwise().hash());
}

TEST(ParamsTest, HashSeesEveryField) {
  // Each field of the reduction params changes the hash, one at a time.
  const ReductionParams base = samplePersistent();
  const Json json = base.toJson();
  for (const auto& [key, value] : json.members()) {
    if (key == "schema_version") continue;
    std::string changed;
    if (value.isBool()) {
      changed = value.asBool() ? "false" : "true";
    } else if (value.isInt()) {
      changed = std::to_string(value.asInt() + 1);
    } else {
      changed = "\"registers\"";
    }
    const ReductionParams other = ReductionParams::fromJson(withMember(json, key, changed));
    EXPECT_NE(other.hash(), base.hash()) << key;
    EXPECT_FALSE(other == base) << key;
  }
  // Equal fields of different structs hash apart.
  EXPECT_NE(PointwiseParams().hash(), TransposeParams().hash());
}

TEST(ParamsTest, DumpsReadLikeNvFusers) {
  const std::string pointwise = samplePointwise().toString();
  EXPECT_EQ(pointwise.rfind("===== Pointwise Parameters ========\n", 0), 0u) << pointwise;
  EXPECT_NE(pointwise.find("2D Schedule\n  Bcast break point: 1\n"), std::string::npos);
  EXPECT_NE(pointwise.find("vectorization_factor: 8\n"), std::string::npos);
  EXPECT_NE(pointwise.find("Flip BIDx/BIDy bindings\n"), std::string::npos);

  const std::string reduction = samplePersistent().toString();
  EXPECT_EQ(reduction.rfind("===== Reduction Parameters ========\n", 0), 0u);
  EXPECT_NE(reduction.find("Red On Fastest Dim\n"), std::string::npos);
  EXPECT_NE(reduction.find("Persistent Kernel (buffers in shared_memory)\n"), std::string::npos);
  EXPECT_NE(reduction.find("Project Persistent Buffers\n"), std::string::npos);
  EXPECT_NE(reduction.find("persistent_batch_size: 5\n"), std::string::npos);
  EXPECT_NE(reduction.find("persistent_storage: shared_memory\n"), std::string::npos);

  EXPECT_NE(sampleTranspose().toString().find("tile_size1: 64"), std::string::npos);
  EXPECT_EQ(paramsToString(std::monostate{}), "no parameters\n");
}

TEST(ParamsTest, VariantHelpers) {
  EXPECT_TRUE(paramsToJson(std::monostate{}).isNull());
  EXPECT_EQ(paramsToJson(sampleTranspose()), sampleTranspose().toJson());
  EXPECT_EQ(paramsKind(samplePersistent()), "reduction");
  EXPECT_EQ(paramsKind(std::monostate{}), "none");

  const HeuristicParams read =
      paramsFromJson(SchedulerType::InnerPersistent, samplePersistent().toJson());
  ASSERT_TRUE(std::holds_alternative<ReductionParams>(read));
  EXPECT_EQ(std::get<ReductionParams>(read), samplePersistent());
  EXPECT_TRUE(
      std::holds_alternative<std::monostate>(paramsFromJson(SchedulerType::ExprEval, Json())));
  EXPECT_NE(userErrorOf([] {
              paramsFromJson(SchedulerType::NoOp, PointwiseParams().toJson());
            }).find("no_op takes no params"),
            std::string::npos);
}

}  // namespace
}  // namespace fuserlab::scheduler
