package io.vrouter.gnmi;

import com.github.gnmi.proto.CapabilityRequest;
import com.github.gnmi.proto.CapabilityResponse;
import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.GetResponse;
import com.github.gnmi.proto.GnmiProto;
import com.github.gnmi.proto.ModelData;
import com.github.gnmi.proto.Notification;
import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SetRequest;
import com.github.gnmi.proto.SetResponse;
import com.github.gnmi.proto.SubscribeRequest;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Update;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.ModelTree;
import io.vrouter.yang.Ns;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gNMI service: Capabilities, Get and Subscribe over the NEW-VMM-MIB data tree and openconfig-interfaces;
 * Set on NEW-VMM-MIB's configuration.
 */
final class GnmiService extends gNMIGrpc.gNMIImplBase {
    private static final Logger log = LoggerFactory.getLogger(GnmiService.class);
    /** The gNMI version of the vendored gnmi.proto (its file option gnmi_service). */
    static final String GNMI_VERSION = GnmiProto.getDescriptor().getOptions().getExtension(GnmiProto.gnmiService);

    private final Subscriptions subscriptions;
    /** Where a Set's transaction is begun: the application's datastores, those of NETCONF and RESTCONF. */
    private final Datastores datastores;
    /** The largest Get response, in bytes of its updates: a Get is one message, built whole before it is sent. */
    private final long maxGetBytes;

    /** Reads through the view of each call's caller ({@link Authentication#VIEW}): it holds no port of its own. */
    GnmiService(Subscriptions subscriptions, Datastores datastores, long maxGetBytes) {
        this.subscriptions = subscriptions;
        this.datastores = datastores;
        this.maxGetBytes = maxGetBytes;
    }

    @Override
    public void capabilities(CapabilityRequest request, StreamObserver<CapabilityResponse> reply) {
        reply.onNext(CapabilityResponse.newBuilder()
                .addSupportedModels(ModelData.newBuilder().setName(Ns.VMM_MODULE).setOrganization(ORGANIZATION)
                        .setVersion(Ns.VMM_REVISION))
                .addSupportedModels(ModelData.newBuilder().setName(OpenConfigInterfaces.MODULE)
                        .setOrganization(OpenConfigInterfaces.ORGANIZATION).setVersion(OpenConfigInterfaces.VERSION))
                .addAllSupportedEncodings(Values.ENCODINGS)
                .setGNMIVersion(GNMI_VERSION)
                .build());
        reply.onCompleted();
    }

    /** The module's organization statement. */
    private static final String ORGANIZATION = organization();

    private static String organization() {
        String text = io.vrouter.yang.Schemas.text(io.vrouter.yang.Schemas.find(Ns.VMM_MODULE, Ns.VMM_REVISION));
        Matcher m = Pattern.compile("organization\\s+\"([^\"]*)\"").matcher(text);
        return m.find() ? m.group(1) : "";
    }

    @Override
    public void get(GetRequest request, StreamObserver<GetResponse> reply) {
        try {
            VirtualRouters service = Authentication.VIEW.get();
            DataGuard.Access access = Authentication.ACCESS.get();
            Encoding encoding = Values.served(request.getEncoding());
            List<Path> asked = request.getPathList().isEmpty() ? List.of(Path.getDefaultInstance()) : request.getPathList();
            List<List<PathElem>> paths = new ArrayList<>();
            List<List<DataNode>> trees = new ArrayList<>();
            for (Path p : asked) {
                paths.add(GnmiPaths.join(request.getPrefix(), p));
                trees.add(trees(service, access, GnmiPaths.origin(request.getPrefix(), p), request.getType()));
            }
            GetResponse.Builder response = GetResponse.newBuilder();
            long now = System.currentTimeMillis() * 1_000_000L;
            int prefixLength = request.getPrefix().getElemCount();
            long[] bytes = {0}; // of the notifications so far
            for (int i = 0; i < paths.size(); i++) {
                List<PathElem> path = paths.get(i);
                // One notification per prefix: the leaves of a container or list entry go under its keyed path, as
                // Subscribe sends them; a subtree in JSON is one value under the request's prefix (made concrete).
                Map<List<PathElem>, Notification.Builder> byPrefix = new LinkedHashMap<>();
                BiConsumer<List<PathElem>, Update> add = (prefix, update) -> {
                    Notification.Builder n = byPrefix.computeIfAbsent(prefix, k -> {
                        Notification.Builder opened = notification(request.getPrefix(), k, now);
                        count(bytes, opened.getPrefix().getSerializedSize());
                        return opened;
                    });
                    count(bytes, update.getSerializedSize());
                    n.addUpdate(update);
                };
                TreeMatch.find(trees.get(i), path, null, match -> {
                    if (encoding == Encoding.PROTO || match.node().isLeaf()) {
                        TreeMatch.leaves(match.node(), new ArrayList<>(match.path()), null, leaf -> add.accept(
                                GnmiPaths.parent(leaf.path()), Update.newBuilder().setPath(GnmiPaths.relative(leaf.path()))
                                        .setVal(Values.of(leaf.node(), encoding)).build()));
                    } else {
                        List<PathElem> full = match.path();
                        List<PathElem> prefix = full.subList(0, Math.min(prefixLength, full.size()));
                        add.accept(prefix, Update.newBuilder().setPath(Path.newBuilder().addAllElem(full.subList(prefix.size(),
                                full.size()))).setVal(Values.of(match.node(), encoding)).build());
                    }
                });
                if (byPrefix.isEmpty()) {
                    throw Status.NOT_FOUND.withDescription("no data at " + GnmiPaths.text(path)).asRuntimeException();
                }
                byPrefix.values().forEach(n -> response.addNotification(n));
            }
            reply.onNext(response.build());
            reply.onCompleted();
        } catch (RuntimeException e) {
            reply.onError(status(e));
        }
    }

    /**
     * Counts bytes of the response (its updates and their notifications' prefixes) against
     * {@code gnmi.max-get-bytes}: past it the Get ends RESOURCE_EXHAUSTED before more is built (a response
     * beyond the direct memory of the server's transport would fail as it is sent, and beyond 4 MiB most
     * clients refuse it).
     */
    private void count(long[] bytes, int more) {
        bytes[0] += more;
        if (bytes[0] > maxGetBytes) {
            throw Status.RESOURCE_EXHAUSTED.withDescription("the response would be more than " + maxGetBytes
                    + " bytes (gnmi.max-get-bytes): get narrower paths").asRuntimeException();
        }
    }

    /** A notification of this time under {@code prefix}, with the request's origin and target (Get and Subscribe). */
    static Notification.Builder notification(Path asked, List<PathElem> prefix, long timestamp) {
        return Notification.newBuilder().setTimestamp(timestamp).setPrefix(prefix(asked, prefix));
    }

    /** The request's prefix with its origin and target, its elements made concrete. */
    static Path prefix(Path asked, List<PathElem> concrete) {
        return Path.newBuilder().setOrigin(asked.getOrigin()).setTarget(asked.getTarget()).addAllElem(concrete).build();
    }

    /**
     * The trees a path of this origin reaches ("": every origin's), of the data type asked for, without
     * what access control lets the caller not read (as NETCONF's get and RESTCONF's GET leave it out).
     */
    static List<DataNode> trees(VirtualRouters service, DataGuard.Access access, String origin, GetRequest.DataType type) {
        List<DataNode> trees = new ArrayList<>(2);
        if (!origin.equals(OpenConfigInterfaces.ORIGIN)) {
            trees.add(switch (type) {
                case ALL -> ModelTree.all(service);
                case CONFIG -> ModelTree.config(ModelTree.running(service));
                case STATE, OPERATIONAL -> ModelTree.state(service);
                default -> throw GnmiPaths.invalid("unknown data type " + type);
            });
        }
        if (!origin.equals(GnmiPaths.ORIGIN)) {
            trees.add(OpenConfigInterfaces.interfaces(service, switch (type) {
                case ALL -> OpenConfigInterfaces.Part.ALL;
                case CONFIG -> OpenConfigInterfaces.Part.CONFIG;
                case STATE, OPERATIONAL -> OpenConfigInterfaces.Part.STATE;
                default -> throw GnmiPaths.invalid("unknown data type " + type);
            }));
        }
        DataNode.Inner root = DataNode.inner(Ns.RESTCONF, "data");
        trees.forEach(root::add);
        List<DataNode> readable = new ArrayList<>(2);
        access.readable(root).children().forEach(readable::add);
        return readable;
    }

    @Override
    public StreamObserver<SubscribeRequest> subscribe(StreamObserver<SubscribeResponse> responses) {
        return subscriptions.open((io.grpc.stub.ServerCallStreamObserver<SubscribeResponse>) responses,
                Authentication.CLIENT.get(), Authentication.VIEW.get(), Authentication.ACCESS.get());
    }

    /** Set: one transaction of running for the caller, all or nothing ({@link GnmiSet}). */
    @Override
    public void set(SetRequest request, StreamObserver<SetResponse> reply) {
        try {
            reply.onNext(GnmiSet.set(datastores, Authentication.CALLER.get(), request));
            reply.onCompleted();
        } catch (RuntimeException e) {
            reply.onError(status(e));
        }
    }

    /** What a failure tells the client: a status it was given, or INTERNAL without the exception's text. */
    static StatusRuntimeException status(Throwable e) {
        if (e instanceof StatusRuntimeException s) return s;
        log.warn("gNMI request failed", e);
        return Status.INTERNAL.withDescription("internal error").asRuntimeException();
    }
}
