# The edge VRs that are shut down, whoever made them.
data "vrouter_routers" "stopped_edges" {
  name        = "edge*"
  admin_state = "shutdown"
}

output "stopped_edges" {
  value = [for r in data.vrouter_routers.stopped_edges.routers : "${r.vm_index} ${r.name}"]
}
