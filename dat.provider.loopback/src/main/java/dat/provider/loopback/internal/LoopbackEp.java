// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatQos;
import dat.api.Iov;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.ProviderHandle;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An endpoint ({@code dat_ep_create}, {@code dat_ep_create_with_srq}): one end of a reliable connection. This
 * file is the handle and its state ({@code dat_ep_free}, the EP state and its transitions); the work of the other
 * calls is split by job, as libfabric splits an EP into {@code _ep}, {@code _msg}/{@code _rma} and {@code _cm}:
 * <ul>
 * <li>{@link LoopbackEpData}: the data path, {@code dat_ep_post_send}, {@code dat_ep_post_recv},
 *     {@code dat_ep_post_rdma_read}, {@code dat_ep_post_rdma_write} and the queue half of {@code dat_rmr_bind}:
 *     the request and receive queues, delivery, completions, flushes, and how a send waits for a receive;</li>
 * <li>{@link LoopbackEpConnection}: connection management, {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 *     {@code dat_ep_disconnect}, {@code dat_ep_reset}, {@code dat_cr_accept}'s establishment, reservation by an
 *     RSP, timeouts, connection events and teardown;</li>
 * <li>{@link LoopbackEpControl}: query and modify, {@code dat_ep_query}, {@code dat_ep_modify},
 *     {@code dat_ep_recv_query}, {@code dat_ep_set_watermark}, {@code dat_ep_get_status}.</li>
 * </ul>
 * The DatEp methods of those jobs are one-line calls into these final classes, which the JIT inlines: no
 * allocation, lock or volatile read is added to a post.
 *
 * <h2>State</h2>
 * The words every job reads are here: {@link #state}, {@link #peer}, {@link #broken} and {@link #connGen}. The
 * data path reads them under its own locks; connection management writes them (see {@link LoopbackEpConnection}).
 *
 * <h2>Locking</h2>
 * {@link #sendLock} and {@link #recvLock} belong to the EP; {@link LoopbackEpData} says what each guards on
 * the data path. State changes take the fabric's connection lock, then both EPs' send locks (lower {@link #id}
 * first), then each recv lock.
 */
final class LoopbackEp extends AbstractEp<LoopbackIa> {

    private static final AtomicLong IDS = new AtomicLong();

    final long id = IDS.incrementAndGet();
    final LoopbackPz pz;
    final LoopbackEvd recvEvd;
    final LoopbackEvd requestEvd;
    final LoopbackEvd connectEvd;
    final LoopbackSrq srq;
    final ReentrantLock sendLock = new ReentrantLock();
    final ReentrantLock recvLock = new ReentrantLock();

    /** Written under sendLock and recvLock (and the connection lock); read anywhere. */
    private volatile DatEpState state = DatEpState.UNCONNECTED;
    /** The connected peer; written with state. */
    volatile LoopbackEp peer;
    /** The connection failed on the data path and awaits its teardown; stops delivery at once. */
    volatile boolean broken;
    /** Which connection this is; changes at establish, under the connection lock and the send locks. */
    long connGen;

    /** The data path: posts, queues, delivery, completions. */
    final LoopbackEpData data;
    /** Connection management. */
    final LoopbackEpConnection connection;
    /** Query and modify. */
    final LoopbackEpControl control;

    LoopbackEp(LoopbackPz pz, LoopbackEvd recvEvd, LoopbackEvd requestEvd, LoopbackEvd connectEvd, LoopbackSrq srq,
               DatEpAttr attr) {
        super(pz.ia(), srq != null);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.data = new LoopbackEpData(this, attr);
        this.connection = new LoopbackEpConnection(this);
        this.control = new LoopbackEpControl(this);
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd || other == srq;
    }

    /** dat_ep_free: a connected or connecting EP is first disconnected abruptly, its work flushed. */
    @Override
    protected void destroy() {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            connection.abandonLocked();
            sendLock.lock();
            recvLock.lock();
            try {
                markClosed();
                data.flushRecvLocked();
                data.flushRequestsLocked();
            } finally {
                recvLock.unlock();
                sendLock.unlock();
            }
            connection.dropReservation();
        } finally {
            fabric.connLock.unlock();
        }
        // Only now: the send lock taken above waited out this EP's last copy, which quiesceDeliveries must see.
        fabric.removeEp(this);
        if (srq != null) {
            srq.detach(this);
        }
    }

    // ------------------------------------------------------------------ state

    @Override
    public DatEpState state() {
        return state;
    }

    /** Caller holds the connection lock. */
    void setState(DatEpState s) {
        sendLock.lock();
        recvLock.lock();
        try {
            state = s;
        } finally {
            recvLock.unlock();
            sendLock.unlock();
        }
    }

    /** Caller holds the connection lock, sendLock and recvLock. */
    void setStateLocked(DatEpState s) {
        state = s;
    }

    DatException wrongState(String call, String expected) {
        return DatArgs.epState(call, "ep_handle", state, expected);
    }

    // ------------------------------------------------------------------ data path: LoopbackEpData

    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postSend(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postRecv(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long segmentLength, int completionFlags) {
        return data.postRdmaWrite(numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long segmentLength, int completionFlags) {
        return data.postRdmaRead(numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    // ------------------------------------------------------------------ connection management: LoopbackEpConnection

    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        connection.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    protected void implDisconnect(DatCloseFlags flags) {
        connection.disconnect(flags);
    }

    @Override
    public void reset() {
        connection.reset();
    }

    // ------------------------------------------------------------------ query and modify: LoopbackEpControl

    @Override
    public DatEpStatus getStatus() {
        return control.getStatus();
    }

    @Override
    public DatEpParam query() {
        return control.query();
    }

    @Override
    protected void implModify(DatEpAttr newAttr) {
        control.modify(newAttr);
    }

    @Override
    protected DatEpRecvInfo implRecvQuery(int which) {
        return control.recvQuery(which);
    }
}
