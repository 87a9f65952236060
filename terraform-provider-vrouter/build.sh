#!/usr/bin/env bash
# Builds the provider binary into bin/ and prints a CLI configuration (dev_overrides) that makes OpenTofu or
# Terraform use it instead of looking for vrouter/vrouter in a registry:
#   ./build.sh && export TF_CLI_CONFIG_FILE=$PWD/bin/dev.tfrc && tofu plan
set -euo pipefail
cd "$(dirname "$0")"
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
mkdir -p bin
go build -ldflags "-X main.version=$version" -o bin/terraform-provider-vrouter .
cat >bin/dev.tfrc <<TFRC
provider_installation {
  dev_overrides {
    "registry.opentofu.org/vrouter/vrouter" = "$PWD/bin"
    "registry.terraform.io/vrouter/vrouter" = "$PWD/bin"
  }
  direct {}
}
TFRC
echo "built bin/terraform-provider-vrouter ($version); use it with: export TF_CLI_CONFIG_FILE=$PWD/bin/dev.tfrc" >&2
