#pragma once
// Tunnel-port negotiation between CloudCore replicas in active-active mode (v1.7+), as pure
// functions (KE@v1.8.0:cloud/cmd/cloudcore/app/server.go NegotiateTunnelPort, negotiatePort):
// the replicas share one record, the annotation "tunnelportrecord.kubeedge.io" of the
// ConfigMap kubeedge/tunnelport, holding each replica's IP -> port and the ports taken. A
// replica that finds its IP there reuses that port; otherwise it takes the lowest port above
// ServerPort (10350) not yet taken and writes the record back (Update; Create when the
// ConfigMap does not exist). Any API error is fatal: the caller panics (the process exits 2
// and the kubelet restarts it), which is what two replicas writing at once get (Conflict on
// Update, AlreadyExists on Create); the random 0-9s sleep before it makes that rarer.
// (v1.7.0 returned nil, nil for a replica already in the record and then dereferenced it: a
// restarted v1.7.0 replica panicked every time; v1.8.0 returns the recorded port, modelled
// here.) The record's text is hasim's own "ip=port,..." form, not upstream's JSON.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace hasim::cloudcore {

inline constexpr int kServerPort = 10350;  // constants.ServerPort
inline constexpr std::string_view kTunnelPortName = "tunnelport";
inline constexpr std::string_view kTunnelPortAnnotation = "tunnelportrecord.kubeedge.io";

struct TunnelPortRecord {
  std::map<std::string, int> ip_tunnel_port;  // ipTunnelPort
  std::set<int> ports;                        // port: {p: true}
  bool operator==(const TunnelPortRecord&) const = default;
};
std::string format_record(const TunnelPortRecord& record);
std::optional<TunnelPortRecord> parse_record(std::string_view text);

// negotiatePort (v1.8.0): the first port above ServerPort not in `taken`.
int negotiate_port(const std::set<int>& taken);

enum class TunnelPortWrite : std::uint8_t { none, create, update };
struct TunnelPortPlan {
  int port = 0;
  TunnelPortWrite write = TunnelPortWrite::none;
  TunnelPortRecord record;  // what to write, when `write` is not none
};
// What NegotiateTunnelPort does with the record it read (nullopt: the ConfigMap was not
// found) for the replica at `ip`.
TunnelPortPlan plan_tunnel_port(const std::optional<TunnelPortRecord>& existing,
                                const std::string& ip);

}  // namespace hasim::cloudcore
