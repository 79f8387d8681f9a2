#pragma once
// What travels between EdgeHub (edgecore.hpp) and CloudHub (cloudcore.hpp): a websocket over
// TCP (Transport::stream) to wss://<server>/<projectID>/<nodeName>/events
// (KE@v1.5.0:edge/pkg/edgehub/clients/wsclient/websocket.go). Object delivery (delivery.hpp)
// travels on the same connection as beehive model.Messages.
#include <string>

#include "models/apiserver/object.hpp"
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

// edged's node status report (v1.7+ only in hasim), sent through EdgeHub every
// nodeStatusUpdateFrequency (10s) while connected: operation update on resource
// "node/<node>/default/nodestatus/<node>", which CloudCore's UpstreamController writes to the
// Node's status (KE@v1.8.0:cloud/pkg/edgecontroller/controller/upstream.go updateNodeStatus).
struct NodeStatusUpdate final : MessageBody {
  std::string node;
  std::string_view type() const override { return "NodeStatusUpdate"; }
};

// beehive model.Message operations on resources (KE@v1.5.0:staging/src/github.com/kubeedge/
// beehive/pkg/core/model/message.go): insert, update, delete, and response (the answer to a
// query from the edge).
enum class Operation : std::uint8_t { insert, update, delete_, response };
std::string_view to_string(Operation operation);

// A resource message from CloudHub to the node: header msg_id and resourceversion, route
// operation and resource "node/<node>/<namespace>/<type>/<name>"; the content is the object.
struct ResourceMessage final : MessageBody {
  std::uint64_t msg_id = 0;
  Operation operation = Operation::insert;
  api::ObjectPtr object;  // for delete, the last state
  std::string_view type() const override { return "ResourceMessage"; }
};
// MetaManager's answer once the object is in its local database: operation response, content
// "OK", parent_msg_id = the cloud message's id (KE@v1.5.0:edge/pkg/metamanager/process.go).
struct ResourceAck final : MessageBody {
  std::string node;
  std::uint64_t parent_msg_id = 0;
  std::string_view type() const override { return "ResourceAck"; }
};
// MetaManager's remote query for a ConfigMap or Secret its pods need and its database lacks
// (operation query, resource "<namespace>/<type>/<name>").
struct ResourceQuery final : MessageBody {
  std::string node;
  api::ObjectKey key;
  std::string_view type() const override { return "ResourceQuery"; }
};

}  // namespace hasim::cloudcore
