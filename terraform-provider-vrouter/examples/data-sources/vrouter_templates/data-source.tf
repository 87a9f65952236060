data "vrouter_templates" "offered" {}

resource "vrouter_router" "r" {
  name     = "r1"
  template = data.vrouter_templates.offered.templates[0] # the driver's default
}
