#!/usr/bin/env bash
# Builds the provider into bin/ and writes two CLI configurations for OpenTofu or Terraform to take it
# from there instead of a registry (export TF_CLI_CONFIG_FILE=... to use one):
#   bin/dev.tfrc     dev_overrides: the binary in bin/ as it is, no `init` needed for it (with a warning)
#   bin/mirror.tfrc  a filesystem mirror laid out as a registry release: `tofu init` installs it and
#                    records its checksum in .terraform.lock.hcl, as for any provider
# VERSION (semantic, default 0.1.0) is the release the binary reports and the mirror offers.
set -euo pipefail
cd "$(dirname "$0")"
version=${VERSION:-0.1.0}
platform=$(go env GOOS)_$(go env GOARCH)
mkdir -p bin
go build -ldflags "-X main.version=$version" -o bin/terraform-provider-vrouter .
mirror=$PWD/bin/mirror
for host in registry.opentofu.org registry.terraform.io; do
  dir=$mirror/$host/vrouter/vrouter/$version/$platform
  mkdir -p "$dir"
  cp bin/terraform-provider-vrouter "$dir/terraform-provider-vrouter_v$version"
done
cat >bin/dev.tfrc <<TFRC
provider_installation {
  dev_overrides {
    "registry.opentofu.org/vrouter/vrouter" = "$PWD/bin"
    "registry.terraform.io/vrouter/vrouter" = "$PWD/bin"
  }
  direct {}
}
TFRC
cat >bin/mirror.tfrc <<TFRC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["registry.opentofu.org/vrouter/vrouter", "registry.terraform.io/vrouter/vrouter"]
  }
  direct {
    exclude = ["registry.opentofu.org/vrouter/vrouter", "registry.terraform.io/vrouter/vrouter"]
  }
}
TFRC
echo "built bin/terraform-provider-vrouter $version; export TF_CLI_CONFIG_FILE=$PWD/bin/mirror.tfrc (tofu init installs it) or $PWD/bin/dev.tfrc (no init)" >&2
