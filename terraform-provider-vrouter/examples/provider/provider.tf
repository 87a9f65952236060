terraform {
  required_providers {
    vrouter = {
      source = "registry.opentofu.org/vrouter/vrouter"
    }
  }
}

# Credentials may come from VROUTER_ENDPOINT, VROUTER_USERNAME and VROUTER_PASSWORD instead.
provider "vrouter" {
  endpoint = "https://router-a.example.net:8443"
  username = "ops"
  password = var.vrouter_password
  ca_file  = "/etc/vrouter/ca.pem"
  timeout  = "2m"
}

variable "vrouter_password" {
  type      = string
  sensitive = true
}
