package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

var (
	_ resource.ResourceWithImportState = &routerResource{}
	_ resource.ResourceWithModifyPlan  = &routerResource{}
)

type routerResource struct{ client *client.Client }

func newRouterResource() resource.Resource { return &routerResource{} }

func (r *routerResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_router"
}

func (r *routerResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		Description: "A virtual router (VR): its vmConfigTable row of NEW-VMM-MIB and its interfaces (vmNetworkConfigTable).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				Description: "The vmIndex, as text."},
			"vm_index": schema.Int64Attribute{Computed: true, PlanModifiers: keepInt,
				Description: "vmIndex: the VR's number on this router, chosen by the server."},
			"name": schema.StringAttribute{Required: true,
				Validators:  []validator.String{stringvalidator.RegexMatches(namePattern, "1-64 letters, digits, '.', '_', '-', starting with a letter or digit")},
				Description: "vmName, unique on the router."},
			"description": schema.StringAttribute{Optional: true,
				Validators:  []validator.String{stringvalidator.LengthBetween(1, 255)},
				Description: "vmConfigDescription: free text for the VR's operators, up to 255 octets."},
			"template": schema.StringAttribute{Optional: true, Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Description:   "vmConfigTemplate: one the driver offers (data source vrouter_templates); default the driver's first. A change replaces the VR."},
			"cpus": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1),
				Validators:  []validator.Int64{int64validator.Between(1, 64)},
				Description: "vmConfigCpuNumber. A change on a running VR stops it, resizes it and starts it again (in place, not replaced)."},
			"memory": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(512),
				Validators:  []validator.Int64{int64validator.Between(64, 1048576)},
				Description: "vmConfigMemory, MiB. A change on a running VR stops it, resizes it and starts it again."},
			"cpu_weight": schema.Int64Attribute{Optional: true, Computed: true, PlanModifiers: keepInt,
				Validators:  []validator.Int64{int64validator.Between(1, 10000)},
				Description: "vmConfigCpuWeight: share of contended CPUs; absent: the server's 100. Changes live."},
			"admin_state": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("running"),
				Validators:  []validator.String{stringvalidator.OneOf("running", "shutdown", "suspended", "paused")},
				Description: "vmAdminState: running (default), shutdown, suspended or paused, as far as the driver offers them."},
			"auto_start": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "vmConfigAutoStart: start with the host."},
			"tenant": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Description: "vmConfigTenant: the owning tenant; only the provider's users may set it. Absent: the caller's."},
			"uuid": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				Description: "vmUUID, the hypervisor's identifier of the VM."},
			"oper_state": schema.StringAttribute{Computed: true,
				Description: "vmOperState once the apply is done: running, shutdown, ..."},
			"interfaces": schema.ListNestedAttribute{Optional: true,
				Description: "vmNetworkConfigTable: the VR's interfaces, in order. A change sends the whole list.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"index": schema.Int64Attribute{Optional: true, Computed: true, PlanModifiers: keepInt,
						Description: "vmNetworkConfigIndex, 1-65535; the next free one when absent."},
					"parent": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
						Description: "vmNetworkConfigParent: the host bridge (bridge), host NIC (macvlan) or underlay device (vxlan)."},
					"mac": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
						Validators:  []validator.String{stringvalidator.RegexMatches(macPattern, "a MAC address such as 52:54:00:12:34:56")},
						Description: "vmNetworkConfigPhysAddress; when absent, the one the hypervisor chose."},
					"address": schema.StringAttribute{Optional: true,
						Description: "vmNetworkConfigAddress, IPv4 or IPv6."},
					"prefix_length": schema.Int64Attribute{Optional: true, Computed: true, PlanModifiers: keepInt,
						Validators:  []validator.Int64{int64validator.Between(0, 128)},
						Description: "vmNetworkConfigPrefixLength."},
					"link_type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("bridge"),
						Validators:  []validator.String{stringvalidator.OneOf("bridge", "peer", "vxlan", "macvlan")},
						Description: "vmNetworkConfigLinkType: bridge (default), peer, vxlan or macvlan."},
					"peer_router": schema.Int64Attribute{Optional: true,
						Description: "peer links: the far VR's vm_index."},
					"peer_interface": schema.Int64Attribute{Optional: true,
						Description: "peer links: the far VR's interface index."},
					"vni": schema.Int64Attribute{Optional: true,
						Validators:  []validator.Int64{int64validator.Between(1, 16777215)},
						Description: "vxlan links: the VXLAN network identifier both ends use."},
					"remote": schema.StringAttribute{Optional: true,
						Description: "vxlan links: the far router's underlay address."},
					"rate_in": schema.Int64Attribute{Optional: true,
						Validators:  []validator.Int64{int64validator.Between(64, 100000000)},
						Description: "vmNetworkConfigRateIn: kbit/s the VR receives at most; absent: no limit."},
					"rate_out": schema.Int64Attribute{Optional: true,
						Validators:  []validator.Int64{int64validator.Between(64, 100000000)},
						Description: "vmNetworkConfigRateOut: kbit/s the VR sends at most; absent: no limit."},
				}},
			},
		},
	}
}

func (r *routerResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = configured(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan warns when the apply will restart a running VR to change its CPUs or memory.
// Where anything changes, the VR's oper_state after the apply is the admin_state asked for: the apply
// waits for that, so the plan says so rather than "known after apply".
func (r *routerResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var state, plan routerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.OperState.IsUnknown() && known(plan.AdminState) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("oper_state"), plan.AdminState)...)
	}
	if req.State.Raw.IsNull() {
		return // create
	}
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if needsRestart(state, plan) {
		resp.Diagnostics.AddWarning("VR "+state.Name.ValueString()+" will be restarted",
			"Its CPUs or memory change, which the server allows only while a VR is shut down: the apply stops it, "+
				"resizes it and starts it again. Its index, UUID, interfaces and MACs stay.")
	}
}

func (r *routerResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan routerModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	created, etag, done, err := r.client.CreateRouter(ctx, routerFromModel(plan), client.NewIdempotencyKey())
	if err != nil {
		addProblem(&resp.Diagnostics, "Cannot create VR "+plan.Name.ValueString(), err)
		return
	}
	if !done {
		settled, settledETag, err := r.settle(ctx, *created.VmIndex)
		if err != nil {
			// It exists: keep it in the state so that the next apply replaces or fixes it, not duplicates it.
			resp.Diagnostics.Append(resp.State.Set(ctx, modelFromRouter(created))...)
			addProblem(&resp.Diagnostics, "VR "+plan.Name.ValueString()+" did not come up", err)
			return
		}
		created, etag = settled, settledETag
	}
	resp.Diagnostics.Append(keep(ctx, &resp.State, resp.Private, created, etag)...)
}

func (r *routerResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state routerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	got, etag, err := r.client.GetRouter(ctx, state.VmIndex.ValueInt64())
	if client.IsStatus(err, http.StatusNotFound) {
		resp.State.RemoveResource(ctx) // removed behind the tool's back: the plan makes it again
		return
	}
	if err != nil {
		addProblem(&resp.Diagnostics, "Cannot read VR "+state.ID.ValueString(), err)
		return
	}
	resp.Diagnostics.Append(keep(ctx, &resp.State, resp.Private, got, etag)...)
}

func (r *routerResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var state, plan routerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	etag, diags := getETag(ctx, req.Private)
	resp.Diagnostics.Append(diags...)
	index := state.VmIndex.ValueInt64()
	patch := patchFrom(state, plan)
	var err error
	if len(patch) > 0 {
		restart := needsRestart(state, plan)
		if restart {
			patch["vmAdminState"] = "shutdown" // the server resizes a VR only while it is shut down
		}
		_, etag, err = r.client.PatchRouter(ctx, index, patch, etag)
		if err == nil && restart {
			_, etag, err = r.client.PatchRouter(ctx, index, map[string]any{"vmAdminState": plan.AdminState.ValueString()}, etag)
		}
		if client.IsStatus(err, http.StatusPreconditionFailed) {
			resp.Diagnostics.AddError("VR "+state.Name.ValueString()+" changed since it was read",
				"Another client changed it after the refresh (its ETag no longer matches); nothing was changed. "+
					"Run plan again to see the difference. "+err.Error())
			return
		}
		if err != nil {
			addProblem(&resp.Diagnostics, "Cannot change VR "+state.Name.ValueString(), err)
			return
		}
	}
	got, etag, err := r.settle(ctx, index)
	if err != nil {
		addProblem(&resp.Diagnostics, "VR "+state.Name.ValueString()+" did not settle", err)
		return
	}
	resp.Diagnostics.Append(keep(ctx, &resp.State, resp.Private, got, etag)...)
}

func (r *routerResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state routerModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	index := state.VmIndex.ValueInt64()
	gone, err := r.client.DeleteRouter(ctx, index)
	if err != nil {
		addProblem(&resp.Diagnostics, "Cannot delete VR "+state.Name.ValueString(), err)
		return
	}
	if gone {
		return
	}
	// Still shutting down when the server's wait ran out: destroy returns once the host objects are gone.
	err = r.poll(ctx, func() (bool, error) {
		_, _, err := r.client.GetRouter(ctx, index)
		if client.IsStatus(err, http.StatusNotFound) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		addProblem(&resp.Diagnostics, "VR "+state.Name.ValueString()+" is not gone", err)
	}
}

// ImportState takes a vmIndex (`tofu import vrouter_router.x 3`) or a vmName (`... edge1`).
func (r *routerResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	index, err := strconv.ParseInt(req.ID, 10, 64)
	if err != nil {
		found, ok, ferr := r.client.FindRouter(ctx, req.ID)
		if ferr != nil {
			addProblem(&resp.Diagnostics, "Cannot look up VR "+req.ID, ferr)
			return
		}
		if !ok {
			resp.Diagnostics.AddError("No VR named "+req.ID, "Import takes a vmIndex or the vmName of an existing VR.")
			return
		}
		index = *found.VmIndex
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), strconv.FormatInt(index, 10))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("vm_index"), index)...)
}

// settle reads the VR until its vmOperState reaches its vmAdminState (the server's own wait ran out first);
// a crashed VR is an error with the driver's reason.
func (r *routerResource) settle(ctx context.Context, index int64) (got client.Router, etag string, err error) {
	err = r.poll(ctx, func() (bool, error) {
		got, etag, err = r.client.GetRouter(ctx, index)
		if err != nil || got.VmEntry == nil {
			return false, err
		}
		switch got.VmEntry.VmOperState {
		case "crashed":
			return false, fmt.Errorf("VR %d crashed: %s", index, got.VmEntry.VmOperStateReason)
		case got.VmAdminState:
			return true, nil
		}
		return false, nil
	})
	return got, etag, err
}

// poll calls done every half second until it says so, fails, or the provider's timeout passes.
func (r *routerResource) poll(ctx context.Context, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, r.client.Timeout)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := done()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %s (the provider's timeout)", r.client.Timeout)
		case <-tick.C:
		}
	}
}

// addProblem turns an error into a diagnostic: a problem's detail is what the operator reads, and the
// field it names is said in the attribute's terms.
func addProblem(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, describe(err))
}

type privateState interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}

type privateReader interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}

// keep stores the VR as the server answered, and its ETag in the resource's private state: the next
// update sends it as If-Match.
func keep(ctx context.Context, state *tfsdk.State, p privateState, r client.Router, etag string) diag.Diagnostics {
	diags := state.Set(ctx, modelFromRouter(r))
	b, _ := json.Marshal(etag)
	return append(diags, p.SetKey(ctx, "etag", b)...)
}

func getETag(ctx context.Context, p privateReader) (string, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, "etag")
	var etag string
	if len(b) > 0 {
		_ = json.Unmarshal(b, &etag)
	}
	return etag, diags
}
