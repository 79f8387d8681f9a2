// A new etcd image for the Etcd as a fault kind of the etcd-druid system:
//
//   {"at": "2m", "kind": "druid-image-update", "image": "v3.5.17"}
//   {"at": "2m", "kind": "druid-image-update", "image": "v3.5.99", "pullFails": true}
//
// the Etcd's spec.etcd.image changes; druid writes it into the StatefulSet's template with the
// ConfigMap's checksum (models/druid/etcd_resource.hpp template_revision); the RollingUpdate
// strategy deletes the pods from the highest ordinal, one at a time, waiting only for the pods
// above (scenarios/workloads/statefulset_runtime.cpp). With "pullFails" the image cannot be pulled:
// the new pods never start (ImagePullBackOff).
#include "models/druid/etcd_resource.hpp"
#include "models/druid/trace_kinds.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

void read_update(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const Json* image = JsonReader::field(f, "image");
  if (image == nullptr) {
    c.reader.error(path, "druid-image-update needs the new image tag: add \"image\": \"v3.5.17\"");
    return;
  }
  const std::string at = JsonReader::key_path(path, "image");
  const auto tag = c.reader.string(*image, at);
  if (!tag) return;
  scenario_loader::check_name(c.reader, *tag, at, "the image tag");
  spec.targets = {*tag};
  scenario_loader::read_bool_field(c.reader, f, path, "pullFails", spec.pull_fails);
}

// kubectl edit etcd: spec.etcd.image changes (a new generation) and druid's watch sees it;
// druid's reconcile writes the new template (druid_controller.cpp). Whether the registry can
// serve the tag is a fact of the world, recorded on the resource for druid to pass on.
void apply_update(World& world, const Scenario& scenario, const FaultSpec& fault,
                  const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && wiring->etcd != nullptr && !fault.targets.empty());
  std::shared_ptr<druid::EtcdResource> etcd = wiring->etcd;
  const ProcessId druid_process = wiring->druid;
  const std::string image = fault.targets.front();
  const std::string name = scenario.section<DruidSpec>()->name;
  const bool pull_fails = fault.pull_fails;
  World* w = &world;
  world.at(TrueTime{fault.at.ns}, [w, etcd, druid_process, image, name, pull_fails] {
    if (pull_fails) etcd->unpullableImages.insert(image);
    if (etcd->image == image) return;  // an unchanged spec: no new generation
    etcd->image = image;
    ++etcd->generation;
    w->trace_fault(druid::trace_kind::kSpecUpdate, "",
                   {{"etcd", name}, {"image", image}, {"generation", etcd->generation}});
    w->post(druid_process, std::make_shared<druid::EtcdSpecChanged>());
  });
}

void write_update(const FaultSpec& f, Json& out) {
  out["image"] = f.targets.front();
  if (f.pull_fails) out["pullFails"] = true;
}

std::string describe_update(const FaultSpec& f) {
  return "etcd image " + f.targets.front() +
         (f.pull_fails ? std::string(" (cannot be pulled)") : std::string());
}

}  // namespace

FaultKind druid_image_update_fault_kind() {
  return {"druid-image-update", read_update,     apply_update,
          write_update,         describe_update, std::nullopt};
}

}  // namespace hasim
