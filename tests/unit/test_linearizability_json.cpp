// properties/linearizability/history_json: the history file written and read back (document
// and JSON Lines), errors that name the place and the field, the header's worked example,
// and the Jepsen EDN export.
#include <catch2/catch.hpp>

#include "properties/linearizability/checker.hpp"
#include "properties/linearizability/history_gen.hpp"
#include "properties/linearizability/history_json.hpp"

using namespace hasim::linearizability;

namespace {

// The worked example of history_json.hpp, verbatim.
const std::string kWorkedExample = R"({"format":"hasim-history","version":1,"operations":[
 {"id":0,"process":1,"key":"/registry/leases/kcm","op":"cas-put","value":"a",
  "expected_mod_revision":0,"invoke_ns":1000,"return_ns":3000,"outcome":"ok",
  "output":{"succeeded":true,"revision":5}},
 {"id":1,"process":2,"key":"/registry/leases/kcm","op":"get","invoke_ns":2000,
  "return_ns":4000,"outcome":"ok",
  "output":{"found":true,"value":"a","mod_revision":5,"revision":5}},
 {"id":2,"process":3,"key":"/registry/leases/kcm","op":"put","value":"b",
  "invoke_ns":5000,"outcome":"unknown"}]})";

std::vector<std::string> errors_of(const std::string& text) {
  const ReadResult result = read_history_json(text);
  CHECK(result.history.operations.empty());
  return result.errors;
}

std::string one_op(const std::string& fields) {
  return R"({"format":"hasim-history","version":1,"operations":[{)" + fields + "}]}";
}

}  // namespace

TEST_CASE("history files round-trip, as a document and as JSON Lines", "[linearizability]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    HistoryShape shape;
    shape.operations = 60;
    shape.fail_permille = 100;
    shape.unknown_permille = 100;
    hasim::Rng rng(seed);
    const History history = generate_history(shape, rng);
    const ReadResult document = read_history_json(write_history_json(history));
    INFO(seed << ": " << (document.errors.empty() ? "" : document.errors.front()));
    CHECK(document.errors.empty());
    CHECK(document.history == history);
    const ReadResult lines = read_history_json(write_history_jsonl(history));
    CHECK(lines.errors.empty());
    CHECK(lines.history == history);
  }
  CHECK(read_history_json(write_history_json(History{})).history == History{});
  CHECK(read_history_json("").errors.empty());
}

TEST_CASE("the worked example reads and is linearizable", "[linearizability]") {
  const ReadResult result = read_history_json(kWorkedExample);
  REQUIRE(result.errors.empty());
  REQUIRE(result.history.operations.size() == 3);
  CHECK(result.history.operations[2].return_ns == kNeverReturned);
  CHECK(result.history.operations[0].expected_mod_revision == 0);
  CHECK(check_online(result.history).kind == VerdictKind::linearizable);
  CHECK(check_offline(result.history).kind == VerdictKind::linearizable);
  // Written back in the documented field order, one operation per line.
  const std::string k = R"("key":"/registry/leases/kcm",)";
  CHECK(write_history_json(result.history) ==
        R"({"format":"hasim-history","version":1,"operations":[)"
        "\n"
        R"({"id":0,"process":1,)" +
            k +
            R"("op":"cas-put","value":"a","expected_mod_revision":0,)"
            R"("invoke_ns":1000,"return_ns":3000,"outcome":"ok",)"
            R"("output":{"succeeded":true,"revision":5}},)"
            "\n"
            R"({"id":1,"process":2,)" +
            k +
            R"("op":"get","invoke_ns":2000,"return_ns":4000,)"
            R"("outcome":"ok","output":{"found":true,"value":"a","mod_revision":5,"revision":5}},)"
            "\n"
            R"({"id":2,"process":3,)" +
            k +
            R"("op":"put","value":"b","invoke_ns":5000,)"
            R"("outcome":"unknown"})"
            "\n]}\n");
}

TEST_CASE("the worked example as Jepsen EDN", "[linearizability]") {
  const History history = read_history_json(kWorkedExample).history;
  const std::string k = "\"/registry/leases/kcm\"";
  CHECK(to_jepsen_edn(history) == "{:index 0, :type :invoke, :process 1, :f :cas, :value [" + k +
                                      " [0 \"a\"]], :time 1000}\n"
                                      "{:index 1, :type :invoke, :process 2, :f :read, :value [" +
                                      k +
                                      " nil], :time 2000}\n"
                                      "{:index 2, :type :ok, :process 1, :f :cas, :value [" +
                                      k +
                                      " [0 \"a\"]], :time 3000, "
                                      ":revision 5}\n"
                                      "{:index 3, :type :ok, :process 2, :f :read, :value [" +
                                      k +
                                      " \"a\"], :time 4000, "
                                      ":revision 5, :mod-revision 5}\n"
                                      "{:index 4, :type :invoke, :process 3, :f :write, :value [" +
                                      k +
                                      " \"b\"], :time 5000}\n"
                                      "{:index 5, :type :info, :process 3, :f :write, :value [" +
                                      k + " \"b\"], :time 5000}\n");
}

TEST_CASE("EDN: failed compares complete with :fail, strings are escaped", "[linearizability]") {
  History history;
  Operation op;
  op.key = "a\"b\\c";
  op.kind = OpKind::cas_delete;
  op.expected_mod_revision = 4;
  op.invoke_ns = 1;
  op.return_ns = 2;
  op.output.found = true;
  op.output.value = "x\ny";
  op.output.mod_revision = 6;
  op.output.revision = 9;
  history.operations.push_back(op);
  CHECK(to_jepsen_edn(history) ==
        "{:index 0, :type :invoke, :process 0, :f :cas-delete, :value [\"a\\\"b\\\\c\" [4 nil]], "
        ":time 1}\n"
        "{:index 1, :type :fail, :process 0, :f :cas-delete, :value [\"a\\\"b\\\\c\" [4 nil]], "
        ":time 2, :revision 9, :error :compare-failed, :observed {:found? true, :value "
        "\"x\\ny\", :mod-revision 6}}\n");
}

TEST_CASE("bad history files: every error names its place and field", "[linearizability]") {
  const std::string base = R"("process":0,"key":"k","invoke_ns":1,)";
  CHECK(errors_of(one_op(base + R"("op":"pt","return_ns":2,"outcome":"ok","output":{})")) ==
        std::vector<std::string>{"operations[0].op: unknown operation \"pt\" (expected get, put, "
                                 "delete, cas-put or cas-delete) (did you mean \"put\"?)"});
  CHECK(errors_of(one_op(base + R"("op":"get","retrun_ns":2,"outcome":"ok","output":{})")) ==
        std::vector<std::string>{
            "operations[0]: unknown field \"retrun_ns\" (did you mean \"return_ns\"?)",
            "operations[0].return_ns: missing (an integer >= 0)"});
  CHECK(errors_of(one_op(base + R"("op":"put","value":1,"outcome":"unknown")")) ==
        std::vector<std::string>{"operations[0].value: must be a string"});
  // A get whose outcome is unknown is fine (and ignored by the checkers).
  CHECK(read_history_json(one_op(base + R"("op":"get","outcome":"unknown")")).errors.empty());
  CHECK(errors_of(one_op(base + R"("op":"put","value":"v","return_ns":2,"outcome":"unknown")"))
            .front() == "operations[0].return_ns: an unknown outcome never returns");
  CHECK(errors_of(one_op(base + R"("op":"get","return_ns":2,"outcome":"ok",)"
                                R"("output":{"revision":-3})"))
            .front() ==
        "operations[0].output.revision: must be an integer >= 0 (and below "
        "2^63 - 1)");
  CHECK(errors_of(one_op(base +
                         R"("op":"cas-put","value":"v","expected_mod_revision":3,"return_ns":2,)"
                         R"("outcome":"ok",)"
                         R"("output":{"succeeded":false,"found":true,"value":"w"})"))
            .front() ==
        "operation 0 (process 0, cas-put k): output.mod_revision is needed when "
        "the compare failed on a present key");
  CHECK(errors_of(R"({"format":"hasim","version":2,"operations":[]})") ==
        std::vector<std::string>{"format: must be \"hasim-history\"",
                                 "version: must be 1 (the only version this hasim reads)"});
  CHECK(errors_of("{\"process\":0}\nnot json\n") ==
        std::vector<std::string>{"line 1.key: missing (a string)", "line 1.op: missing (a string)",
                                 "line 1.outcome: missing (a string)",
                                 "line 1.invoke_ns: missing (an integer >= 0)",
                                 "line 1.return_ns: missing (an integer >= 0)",
                                 "line 2: not a JSON object (JSON Lines: one operation per line)"});
  CHECK(errors_of(R"({"format":"hasim-history","operations":[{]})")
            .front()
            .rfind("not a JSON document: [json.exception.parse_error.101] parse error at line 1, "
                   "column 42",
                   0) == 0);
  CHECK(errors_of(std::string("{\"a\":1}\0", 8)).front().find("NUL") != std::string::npos);
}
