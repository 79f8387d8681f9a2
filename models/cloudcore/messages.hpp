#pragma once
// What travels between EdgeHub (edgecore.hpp) and CloudHub (cloudcore.hpp): a websocket over
// TCP (Transport::stream) to wss://<server>/<projectID>/<nodeName>/events
// (KE@v1.5.0:edge/pkg/edgehub/clients/wsclient/websocket.go). Object delivery (the ACK
// queue, ObjectSync) travels on the same connection in a later slice.
#include <string>

#include "sim/env.hpp"

namespace hasim::cloudcore {

// The websocket handshake of one dial, carrying the node_id header.
struct EdgeConnect final : MessageBody {
  std::string node;
  std::string_view type() const override { return "EdgeConnect"; }
};
// The handshake succeeded: CloudHub opened a session for the node.
struct EdgeConnectAccepted final : MessageBody {
  std::string_view type() const override { return "EdgeConnectAccepted"; }
};
// Nothing listens on the CloudHub port (a standby runs no modules): the host's TCP stack
// answers the SYN with RST, "connection refused".
struct EdgeConnectRefused final : MessageBody {
  std::string_view type() const override { return "EdgeConnectRefused"; }
};
// EdgeHub's keepalive message (operation "keepalive", resource "node"), every heartbeat.
struct EdgeKeepalive final : MessageBody {
  std::string node;
  std::string_view type() const override { return "EdgeKeepalive"; }
};
// CloudHub closed the node's websocket (its keepalive check expired), or a frame arrived on a
// connection it no longer has (the closed socket answers RST).
struct SessionClosed final : MessageBody {
  std::string_view type() const override { return "SessionClosed"; }
};

}  // namespace hasim::cloudcore
