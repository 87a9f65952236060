# The README's first VR: between two host bridges, with a rate limit on its uplink.
resource "vrouter_router" "edge1" {
  name        = "edge1"
  description = "edge of site A"
  template    = "vyos" # a change replaces the VR
  cpus        = 1      # CPUs and memory: a change restarts a running VR, in place
  memory      = 256
  cpu_weight  = 200

  interfaces = [
    { parent = "br-a", address = "192.0.2.1", prefix_length = 25, rate_out = 50000 },
    { parent = "br-b", address = "198.51.100.1", prefix_length = 25 },
  ]
}

output "edge1_macs" {
  value = [for i in vrouter_router.edge1.interfaces : i.mac]
}
