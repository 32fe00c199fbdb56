// SPDX-License-Identifier: Apache-2.0
package dat.tck.peer;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.registry.peer.PeerAddress;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The two ends of the fault suite ({@code dat tck-fault}): a <b>victim</b> that serves one connection until a fault
 * ends it, and a <b>survivor</b> that keeps sends, RDMA writes and SRQ receives in flight to a victim on another
 * node while the fault strikes, then checks what DAT promises the side that lives: one connection event that ends
 * the connection (DISCONNECTED or BROKEN) within the timeout, every request completed exactly once (successfully,
 * flushed or in error), every object of the connection freed (checked with {@code rdma resource}, so the QPs, CQs
 * and MRs are gone from the device, not only from Java), and a new connection that works.
 *
 * <p>The faults are made outside the JVMs under test, by the victim node's script: {@link Fault#KILL} is
 * {@code kill -9} of the victim's JVM, {@link Fault#LINK} takes the victim's link down and up again; only
 * {@link Fault#CLOSE} ({@code dat_ia_close} ABRUPT) is the victim's own call. The victim writes its marker file once
 * traffic flows both ways, which is when the script strikes; it holds the JVM's pid. {@link Fault#NONE} is the closing
 * check: a plain
 * connection, echoes, a graceful disconnect.
 *
 * <p>Wire: the victim's accept carries, in its private data, the magic "FLT1", then the rmr_context (4 bytes),
 * address (8) and length (8) of the region the survivor writes into; each message the victim receives it answers
 * with one of its own.
 */
public final class FaultDrill {

    /** What ends the connection. */
    public enum Fault {
        /** {@code kill -9} of the victim JVM (by the victim node's script). */
        KILL,
        /** The victim node's link goes down, then up again (by its script). */
        LINK,
        /** The victim closes its IA with {@code DAT_CLOSE_ABRUPT} while traffic flows. */
        CLOSE,
        /** No fault: echoes over a fresh connection, then a graceful disconnect by the survivor. */
        NONE;

        /**
         * {@return the fault}
         *
         * @param name a fault's name in any case
         * @throws IllegalArgumentException for an unknown name
         */
        public static Fault parse(String name) {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        }
    }

    private static final int MAGIC = 0x464c5431;
    private static final int MESSAGE = 1024;
    private static final int WRITE = 4096;
    private static final long REGION = 64 * 1024;
    private static final int DEPTH = 64;
    private static final int RECEIVES = 32;
    /** Messages the victim takes before it says traffic flows. */
    private static final int FLOWING = 200;
    /** Silence after which a LINK victim probes the connection with a send of its own. */
    private static final long PROBE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How long after the marker a LINK victim waits for its connection to end: the link is down 30 s, and the
     * survivor's next phase tries to connect for its timeout (150 s in the suite) from its own break on.
     */
    static final Duration LINK_GIVE_UP = Duration.ofSeconds(90);

    private FaultDrill() {
    }

    // ------------------------------------------------------------------------------------------------ victim

    /**
     * Serves one connection on {@code connQual} until it ends or {@code timeout} passes.
     *
     * @param ia the victim's IA; closed ABRUPT here for {@link Fault#CLOSE}
     * @param connQual where to listen
     * @param fault the fault this run undergoes
     * @param marker written once traffic flows both ways
     * @param timeout the longest the victim serves
     * @param out one line per stage
     * @return 0 when the connection ended (or the IA was closed as asked), 1 on timeout or failure
     */
    public static int victim(DatIa ia, long connQual, Fault fault, Path marker, Duration timeout, PrintWriter out) {
        return victim(ia, connQual, fault, marker, timeout, LINK_GIVE_UP, out);
    }

    /**
     * Serves one connection as {@link #victim(DatIa, long, Fault, Path, Duration, PrintWriter)} does, a
     * {@link Fault#LINK} victim giving its connection up {@code linkGiveUp} after traffic began to flow if no
     * connection event ended it (see {@link #giveUp}).
     *
     * @param ia the victim's IA; closed ABRUPT here for {@link Fault#CLOSE}
     * @param connQual where to listen
     * @param fault the fault this run undergoes
     * @param marker written once traffic flows both ways
     * @param timeout the longest the victim serves
     * @param linkGiveUp how long after the marker a LINK victim waits for its connection to end
     * @param out one line per stage
     * @return 0 when the connection ended (or the IA was closed as asked, or a LINK victim gave up with nothing of
     *     DAT's broken), 1 on timeout or failure
     */
    public static int victim(DatIa ia, long connQual, Fault fault, Path marker, Duration timeout, Duration linkGiveUp,
                             PrintWriter out) {
        long deadline = System.nanoTime() + timeout.toNanos();
        DatIaAttr limits = ia.query();
        List<DatHandle> handles = new ArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = keep(handles, ia.createPz());
            int qlen = Math.min(256, limits.maxEvdQlen());
            DatEvd crEvd = keep(handles, ia.createEvd(16, null, DatEvdFlags.CR));
            DatEvd connectEvd = keep(handles, ia.createEvd(16, null, DatEvdFlags.CONNECTION));
            DatEvd requestEvd = keep(handles, ia.createEvd(qlen, null, DatEvdFlags.DTO));
            DatEvd recvEvd = keep(handles, ia.createEvd(qlen, null, DatEvdFlags.DTO));
            DatLmr region = keep(handles, ia.createLmr(pz, arena.allocate(REGION, 4096), DatMemPriv.ALL));
            DatLmr buffers = keep(handles, ia.createLmr(pz, arena.allocate((long) MESSAGE * (RECEIVES + 1), 64),
                    DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE));
            DatEp ep = keep(handles, ia.createEp(pz, recvEvd, requestEvd, connectEvd, epAttr(limits, RECEIVES)));
            Iov iov = Iov.allocate(arena, 1);
            for (int i = 0; i < RECEIVES; i++) {
                check(ep.postRecv(1, iov.set(0, buffers, (long) i * MESSAGE, MESSAGE), i, 0), "dat_ep_post_recv");
            }
            DatPsp psp = keep(handles, ia.createPsp(connQual, crEvd, DatPspFlags.CONSUMER));
            out.println("dat tck-fault victim: listening on conn_qual " + connQual + " for " + fault);
            out.flush();
            DatEvent event = new DatEvent();
            if (!await(crEvd, event, deadline) || event.type() != DatEventType.CONNECTION_REQUEST_EVENT) {
                out.println("dat tck-fault victim: no connection request in time");
                return 1;
            }
            DatCr cr = event.cr();
            cr.accept(ep, acceptData(region));
            psp.close();
            long received = 0;
            Requests sending = new Requests();
            boolean connected = false;
            long flowingAt = 0;
            long heard = System.nanoTime();
            while (System.nanoTime() < deadline) {
                boolean any = false;
                while (connectEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                    any = true;
                    if (event.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                        connected = true;
                    } else {
                        out.println("dat tck-fault victim: " + event.type() + " after " + received + " messages");
                        out.flush();
                        return 0;
                    }
                }
                while (connected && recvEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                    any = true;
                    if (event.dtoStatus() != DatDtoStatus.SUCCESS) {
                        continue;
                    }
                    received++;
                    long slot = event.userCookie();
                    check(ep.postRecv(1, iov.set(0, buffers, slot * MESSAGE, MESSAGE), slot, 0), "dat_ep_post_recv");
                    if (sending.outstanding < DEPTH / 2) {
                        sending.post(ep, iov, buffers, received, false);
                    }
                }
                any |= sending.reap(requestEvd, event);
                if (flowingAt == 0 && received >= FLOWING) {
                    flowingAt = System.nanoTime();
                    writeMarker(marker, received);
                    out.println("dat tck-fault victim: traffic flows (" + received + " messages); marker written");
                    out.flush();
                    if (fault == Fault.CLOSE) {
                        closeAbruptly(ia, handles, out);
                        return 0;
                    }
                }
                long now = System.nanoTime();
                if (any) {
                    heard = now;
                } else if (fault == Fault.LINK && flowingAt != 0 && now - flowingAt > linkGiveUp.toNanos()) {
                    return giveUp(ep, connectEvd, requestEvd, event, sending, linkGiveUp, out);
                } else if (fault == Fault.LINK && flowingAt != 0 && sending.outstanding == 0
                        && now - heard > PROBE_AFTER_NANOS) {
                    // RC has no keepalive, and the survivor's disconnect request may have been lost with the link:
                    // only a request of ours, running out of retries against a peer that is gone, ends the
                    // connection here. Without it this victim waited for its timeout, and the next phase's
                    // connect with it.
                    sending.post(ep, iov, buffers, received, true);
                    heard = now;
                } else {
                    Thread.sleep(1);
                }
            }
            out.println("dat tck-fault victim: still connected at the timeout, " + received + " messages");
            return 1;
        } catch (DatException | IOException e) {
            out.println("dat tck-fault victim: " + e);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } finally {
            out.flush();
            free(handles);
        }
    }

    /** {@return the accept's private data: the magic, then the rmr_context, address and length of {@code region}} */
    private static byte[] acceptData(DatLmr region) {
        return ByteBuffer.allocate(24).putInt(MAGIC).putInt(region.rmrContext())
                .putLong(region.address()).putLong(region.length()).array();
    }

    /**
     * The victim's sends: its answers and its probes, how many are outstanding, how they completed, and the probes
     * the EP refused.
     */
    private static final class Requests {
        final Map<DatDtoStatus, Integer> completions = new EnumMap<>(DatDtoStatus.class);
        int outstanding;
        int probes;
        int refused;
        int lastRefusal = DatReturn.DAT_SUCCESS;

        /** Posts one message, the answer to a message received or, with {@code probe}, a probe. */
        void post(DatEp ep, Iov iov, DatLmr buffers, long cookie, boolean probe) {
            int rc = ep.postSend(1, iov.set(0, buffers, (long) RECEIVES * MESSAGE, MESSAGE), cookie, 0);
            probes += probe ? 1 : 0;
            if (rc == DatReturn.DAT_SUCCESS) {
                outstanding++;
            } else {
                refused++;
                lastRefusal = rc;
            }
        }

        /** {@return whether any request completed} */
        boolean reap(DatEvd requestEvd, DatEvent event) {
            boolean any = false;
            while (requestEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                any = true;
                outstanding--;
                completions.merge(event.dtoStatus(), 1, Integer::sum);
            }
            return any;
        }

        @Override
        public String toString() {
            return outstanding + " sends outstanding, completions " + completions + ", " + probes + " probes, "
                    + refused + " posts refused" + (refused == 0 ? "" : " (last: " + DatReturn.toString(lastRefusal)
                    + ")");
        }
    }

    /**
     * A {@link Fault#LINK} victim whose connection no event ended {@code after} the fault began. DAT's promises
     * hold if nothing of the victim completed in error or was refused while the EP called itself connected (an
     * error completion breaks the connection), and if {@code dat_ep_disconnect(ABRUPT)} now completes every request:
     * the transport then merely never gave up on a request (rxe on 6.1 was seen to hold one for minutes after the
     * link came back). The victim ends its side rather than serve to its timeout, which would also outlast the
     * survivor's next connect.
     *
     * @return 0 when nothing of DAT broke, 1 otherwise
     */
    private static int giveUp(DatEp ep, DatEvd connectEvd, DatEvd requestEvd, DatEvent event, Requests sending,
                              Duration after, PrintWriter out) throws InterruptedException {
        String state = "EP " + ep.state() + ", " + sending;
        int errors = sending.completions.entrySet().stream().filter(e -> e.getKey() != DatDtoStatus.SUCCESS)
                .mapToInt(Map.Entry::getValue).sum();
        ep.disconnect(DatCloseFlags.ABRUPT);
        long flushBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sending.outstanding > 0 && System.nanoTime() < flushBy) {
            if (!sending.reap(requestEvd, event)) {
                Thread.sleep(1);
            }
        }
        while (connectEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
            state += "; then " + event.type();
        }
        List<String> broken = new ArrayList<>();
        if (errors > 0) {
            broken.add(errors + " requests completed in error and the connection was not declared broken");
        }
        if (sending.refused > 0) {
            broken.add("the connected EP refused " + sending.refused + " posts");
        }
        if (sending.outstanding > 0) {
            broken.add(sending.outstanding + " requests still outstanding 10 s after dat_ep_disconnect(ABRUPT)");
        }
        out.println("dat tck-fault victim: LINK: no connection event " + after.toSeconds() + " s after the fault"
                + " began (" + state + "); dat_ep_disconnect(ABRUPT): " + sending
                + (broken.isEmpty() ? "; the transport never gave up a request, nothing of DAT broken"
                : "; VIOLATION: " + String.join("; ", broken)));
        return broken.isEmpty() ? 0 : 1;
    }

    /** Writes the marker that tells the victim node's script traffic flows. */
    private static void writeMarker(Path marker, long received) throws IOException {
        // The pid first: the node's script kills this JVM, not the launcher script that started it.
        Path written = Files.writeString(marker.resolveSibling(marker.getFileName() + ".tmp"), "pid "
                + ProcessHandle.current().pid() + "\n" + received + " messages\n",
                StandardCharsets.US_ASCII);
        // Whole or not at all: the script reads the pid as soon as the file exists.
        Files.move(written, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The fault {@link Fault#CLOSE}: the IA closed ABRUPT under traffic, its handles gone with it. */
    private static void closeAbruptly(DatIa ia, List<DatHandle> handles, PrintWriter out)
            throws InterruptedException {
        Thread.sleep(100);
        ia.close(DatCloseFlags.ABRUPT);
        handles.clear();
        out.println("dat tck-fault victim: dat_ia_close(ABRUPT) returned");
        out.flush();
    }

    // ------------------------------------------------------------------------------------------------ survivor

    /**
     * What one fault produced at the survivor.
     *
     * @param fault the fault the victim suffered
     * @param event the connection event the survivor got, or what it got instead
     * @param millisToEvent milliseconds until that event
     * @param completions the survivor's request completions, counted by status
     * @param receives messages the survivor received in the phase
     * @param held this process's objects on the device before the free ({@code rdma resource}), or why not checked
     * @param resources what was left of them after the free
     * @param violations the DAT promises that did not hold; empty when the phase passed
     */
    public record Phase(Fault fault, String event, long millisToEvent, Map<DatDtoStatus, Integer> completions,
                        long receives, String held, String resources, List<String> violations) {

        /** {@return whether DAT's promises held} */
        public boolean passed() {
            return violations.isEmpty();
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%-5s %s: %s after %d ms; requests %s; %d messages received;"
                    + " on the device before the free: %s, after: %s%s", fault, passed() ? "PASS" : "FAIL", event,
                    millisToEvent, completions, receives, held, resources,
                    violations.isEmpty() ? "" : "; " + String.join("; ", violations));
        }
    }

    /**
     * Runs one phase per fault against victims at {@code host:connQual}, started one after another by the victim
     * node's script.
     *
     * @param ia the survivor's IA
     * @param host the victim node
     * @param connQual where its victims listen
     * @param faults the phases, in the victim script's order
     * @param timeout the longest a phase may take to connect, and then to see its connection end
     * @param checkDevice whether to check with {@code rdma resource} that the device holds nothing of this process
     *     once a phase freed its objects (a provider without a device, such as loopback, has nothing to check)
     * @param out one line per phase
     * @return the phases
     */
    public static List<Phase> survivor(DatIa ia, InetAddress host, long connQual, List<Fault> faults,
                                       Duration timeout, boolean checkDevice, PrintWriter out) {
        List<Phase> phases = new ArrayList<>();
        for (Fault fault : faults) {
            Phase p = phase(ia, host, connQual, fault, timeout, checkDevice);
            out.println("dat tck-fault survivor: " + p);
            out.flush();
            phases.add(p);
        }
        return phases;
    }

    private static Phase phase(DatIa ia, InetAddress host, long connQual, Fault fault, Duration timeout,
                               boolean checkDevice) {
        Traffic t = new Traffic();
        List<DatHandle> handles = new ArrayList<>();
        DatIaAttr limits = ia.query();
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = keep(handles, ia.createPz());
            int qlen = Math.min(256, limits.maxEvdQlen());
            DatEvd connectEvd = keep(handles, ia.createEvd(16, null, DatEvdFlags.CONNECTION));
            DatEvd requestEvd = keep(handles, ia.createEvd(qlen, null, DatEvdFlags.DTO));
            DatEvd recvEvd = keep(handles, ia.createEvd(qlen, null, DatEvdFlags.DTO));
            DatSrq srq = keep(handles, ia.createSrq(pz, DatSrqAttr.of(DEPTH, 1)));
            DatLmr source = keep(handles, ia.createLmr(pz, arena.allocate(WRITE, 64), DatMemPriv.LOCAL_READ));
            DatLmr buffers = keep(handles, ia.createLmr(pz, arena.allocate((long) MESSAGE * DEPTH, 64),
                    DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE));
            Iov iov = Iov.allocate(arena, 1);
            for (int i = 0; i < DEPTH; i++) {
                check(srq.postRecv(1, iov.set(0, buffers, (long) i * MESSAGE, MESSAGE), i), "dat_srq_post_recv");
            }
            DatEp ep = keep(handles, ia.createEpWithSrq(pz, recvEvd, requestEvd, connectEvd, srq,
                    epAttr(limits, 0)));
            DatEvent event = new DatEvent();
            Map<DatEventType, Integer> attempts = new EnumMap<>(DatEventType.class);
            ByteBuffer target = connect(ep, connectEvd, event, host, connQual, System.nanoTime() + timeout.toNanos(),
                    attempts);
            if (target == null) {
                t.violations.add("could not connect within " + timeout.toSeconds() + " s; attempts ended in "
                        + (attempts.isEmpty() ? "nothing" : attempts));
                return t.phase(fault, "-", "-");
            }
            int context = target.getInt(4);
            long address = target.getLong(8);
            long start = System.nanoTime();
            long deadline = start + timeout.toNanos();
            int echoes = fault == Fault.NONE ? 64 : Integer.MAX_VALUE;
            while (System.nanoTime() < deadline) {
                boolean any = t.post(ep, iov, source, fault, echoes, context, address);
                any |= t.completed(requestEvd, event);
                any |= t.received(recvEvd, event, srq, iov, buffers);
                if (fault == Fault.NONE && t.open && t.cookie > echoes && t.outstanding.isEmpty()) {
                    ep.disconnect(DatCloseFlags.GRACEFUL);
                    t.open = false;
                }
                while (connectEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                    any = true;
                    if (t.brokeAt != 0) {
                        t.violations.add("a second connection event: " + event.type());
                        continue;
                    }
                    t.ended = event.type().name();
                    t.brokeAt = System.nanoTime();
                    t.millis = TimeUnit.NANOSECONDS.toMillis(t.brokeAt - start);
                    t.open = false;
                    // What was posted must now complete, flushed at the latest, within the timeout.
                    deadline = t.brokeAt + timeout.toNanos();
                    if (event.type() != DatEventType.CONNECTION_EVENT_DISCONNECTED
                            && event.type() != DatEventType.CONNECTION_EVENT_BROKEN) {
                        t.violations.add("the connection ended with " + event.type());
                    }
                }
                if (t.brokeAt != 0 && t.outstanding.isEmpty()) {
                    break;
                }
                if (!any) {
                    Thread.sleep(1);
                }
            }
            t.judgeTheEnd(fault, timeout, echoes);
            // The same look before the free must see the phase's objects, or the check after it proves nothing.
            String held = checkDevice ? onTheDevice() : "not checked (no device)";
            if (checkDevice && !held.contains("QP")) {
                t.violations.add("rdma resource does not show this process's QP before the free: " + held);
            }
            free(handles);
            String left = checkDevice ? onTheDevice() : "not checked (no device)";
            if (checkDevice && !left.equals(NOTHING)) {
                t.violations.add("left on the device after every object was freed: " + left);
            }
            return t.phase(fault, held, left);
        } catch (DatException e) {
            t.violations.add(e.getMessage());
            return t.phase(fault, "-", "-");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            t.violations.add("interrupted");
            return t.phase(fault, "-", "-");
        } finally {
            free(handles);
        }
    }

    /**
     * The survivor's side of one phase as it stands: what is posted and not yet completed, what completed, how the
     * connection ended. A phase that fails part way reports what it holds at that moment.
     */
    private static final class Traffic {
        final List<String> violations = new ArrayList<>();
        final Map<DatDtoStatus, Integer> completions = new EnumMap<>(DatDtoStatus.class);
        /** The requests posted and not completed yet, by cookie. */
        final Map<Long, String> outstanding = new HashMap<>();
        String ended = "no connection";
        long millis;
        long receives;
        long cookie = 1;
        /** Whether to post more; false once the connection ended or a post was refused. */
        boolean open = true;
        /** When the connection event came; 0 before it. */
        long brokeAt;

        Phase phase(Fault fault, String held, String left) {
            return new Phase(fault, ended, millis, completions, receives, held, left, violations);
        }

        /**
         * Fills the request queue up to {@code DEPTH - 8} with sends and, for a fault, RDMA writes in turn, up to
         * {@code echoes} requests in all.
         *
         * @return whether anything was posted or refused
         */
        boolean post(DatEp ep, Iov iov, DatLmr source, Fault fault, int echoes, int context, long address) {
            boolean any = false;
            while (open && outstanding.size() < DEPTH - 8 && cookie <= echoes) {
                boolean send = (cookie & 1) == 1 || fault == Fault.NONE;
                int rc = send ? ep.postSend(1, iov.set(0, source, 0, MESSAGE), cookie, 0)
                        : ep.postRdmaWrite(1, iov.set(0, source, 0, WRITE), cookie, context,
                                address + (cookie % (REGION / WRITE)) * WRITE, WRITE, 0);
                if (rc == DatReturn.DAT_SUCCESS) {
                    outstanding.put(cookie++, send ? "send" : "write");
                } else if (rc == DatReturn.DAT_INVALID_STATE) {
                    open = false;
                } else {
                    violations.add((send ? "dat_ep_post_send" : "dat_ep_post_rdma_write") + " returned "
                            + DatReturn.toString(rc));
                    open = false;
                }
                any = true;
            }
            return any;
        }

        /** {@return whether any request completed} Reaps every completion; each request must complete once. */
        boolean completed(DatEvd requestEvd, DatEvent event) {
            boolean any = false;
            while (requestEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                any = true;
                if (outstanding.remove(event.userCookie()) == null) {
                    violations.add("request " + event.userCookie() + " completed twice or was never posted ("
                            + event.dtoStatus() + ")");
                }
                completions.merge(event.dtoStatus(), 1, Integer::sum);
            }
            return any;
        }

        /** {@return whether any receive completed} Reaps every one, giving each received buffer back to the SRQ. */
        boolean received(DatEvd recvEvd, DatEvent event, DatSrq srq, Iov iov, DatLmr buffers) {
            boolean any = false;
            while (recvEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                any = true;
                if (event.dtoStatus() == DatDtoStatus.SUCCESS) {
                    receives++;
                    long slot = event.userCookie();
                    check(srq.postRecv(1, iov.set(0, buffers, slot * MESSAGE, MESSAGE), slot), "dat_srq_post_recv");
                }
            }
            return any;
        }

        /** Adds what the end of the traffic broke of DAT's promises: the event, every completion, the echoes. */
        void judgeTheEnd(Fault fault, Duration timeout, int echoes) {
            if (brokeAt == 0) {
                violations.add("no connection event within " + timeout.toSeconds() + " s of the first post");
            } else if (!outstanding.isEmpty()) {
                violations.add(outstanding.size() + " requests never completed within " + timeout.toSeconds()
                        + " s of the connection event (first: " + outstanding.keySet().iterator().next() + ")");
            }
            if (fault == Fault.NONE && completions.getOrDefault(DatDtoStatus.SUCCESS, 0) != echoes) {
                violations.add("a plain connection: " + completions + " instead of " + echoes + " successes");
            }
        }
    }

    /**
     * Connects, retrying while the victim is not listening yet; returns the accept's private data, or null at the
     * deadline with how each attempt ended counted in {@code attempts}.
     */
    private static ByteBuffer connect(DatEp ep, DatEvd connectEvd, DatEvent event, InetAddress host, long connQual,
                                      long deadline, Map<DatEventType, Integer> attempts)
            throws InterruptedException {
        if (!new PeerAddress(host, connQual).connect(ep, connectEvd, event, null, deadline, attempts)) {
            return null;
        }
        ByteBuffer data = ByteBuffer.wrap(event.privateData());
        if (data.remaining() < 24 || data.getInt(0) != MAGIC) {
            throw new DatException(DatReturn.INVALID_PARAMETER, "the accept is not a victim's");
        }
        return data;
    }

    private static final Pattern PID = Pattern.compile("\"pid\":(\\d+)");

    private static final String NOTHING = "none";

    /**
     * Counts, with {@code rdma -j resource show}, the QPs, CQs and MRs this process holds on the device.
     *
     * @return {@value #NOTHING} when there are none, else how many of each, or why it could not be checked
     */
    static String onTheDevice() {
        StringBuilder left = new StringBuilder();
        for (String kind : List.of("qp", "cq", "mr")) {
            String json;
            try {
                Process p = new ProcessBuilder("rdma", "-j", "resource", "show", kind).redirectErrorStream(true)
                        .start();
                json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    return "not checked: rdma resource show " + kind + " failed: " + json.strip();
                }
            } catch (IOException e) {
                return "not checked: " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "not checked: interrupted";
            }
            int n = 0;
            Matcher m = PID.matcher(json);
            while (m.find()) {
                // rdma names the thread that made the object (in the guest: 189 in a JVM of pid 188).
                n += Files.exists(Path.of("/proc/self/task", m.group(1))) ? 1 : 0;
            }
            if (n > 0) {
                left.append(left.isEmpty() ? "" : ", ").append(n).append(' ').append(kind.toUpperCase(Locale.ROOT))
                        .append(n == 1 ? "" : "s");
            }
        }
        return left.isEmpty() ? NOTHING : left.toString();
    }

    // ------------------------------------------------------------------------------------------------ shared

    private static DatEpAttr epAttr(DatIaAttr limits, int receives) {
        return DatEpAttr.builder()
                .maxMessageSize(Math.min(REGION, limits.maxMessageSize()))
                .maxRdmaSize(Math.min(REGION, limits.maxRdmaSize()))
                .maxRecvDtos(Math.max(1, receives)).maxRequestDtos(DEPTH)
                .maxRecvIov(1).maxRequestIov(1)
                .maxRdmaReadIov(Math.min(1, limits.maxIovSegmentsPerRdmaRead()))
                .maxRdmaWriteIov(Math.min(1, limits.maxIovSegmentsPerRdmaWrite()))
                .maxRdmaReadIn(0).maxRdmaReadOut(0)
                .recvCompletionFlags(DatCompletionFlags.DEFAULT).requestCompletionFlags(DatCompletionFlags.DEFAULT)
                .build();
    }

    private static boolean await(DatEvd evd, DatEvent event, long deadline) {
        long left = TimeUnit.NANOSECONDS.toMicros(deadline - System.nanoTime());
        return left > 0 && evd.await(left, 1, event) == DatReturn.DAT_SUCCESS;
    }

    private static void check(int rc, String call) {
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new DatException(DatReturn.of(rc), call + " returned " + DatReturn.toString(rc));
        }
    }

    private static <T extends DatHandle> T keep(List<DatHandle> handles, T h) {
        handles.add(h);
        return h;
    }

    /** Frees newest first (an EP before its EVDs, LMRs before their PZ); a handle already freed is skipped. */
    private static void free(List<DatHandle> handles) {
        for (int i = handles.size() - 1; i >= 0; i--) {
            try {
                handles.get(i).close();
            } catch (DatException e) {
                // Reported by the resource check: whatever could not be freed is still on the device.
            }
        }
        handles.clear();
    }

    /**
     * {@return the faults}
     *
     * @param name a comma-separated list such as {@code kill,link,close,none}
     */
    public static List<Fault> parseFaults(String name) {
        List<Fault> faults = new ArrayList<>();
        String[] parts = name.split(",", -1);
        int n = parts.length;
        if (n > 1) {
            // Trailing empty entries have always been ignored ("kill,link," names two faults); others fail.
            while (n > 0 && parts[n - 1].isEmpty()) {
                n--;
            }
        }
        for (int i = 0; i < n; i++) {
            faults.add(Fault.parse(parts[i]));
        }
        return faults;
    }
}
