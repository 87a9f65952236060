data "vrouter_hypervisor" "host" {}

output "free_memory_mib" {
  value = data.vrouter_hypervisor.host.memory - data.vrouter_hypervisor.host.committed_memory
}
