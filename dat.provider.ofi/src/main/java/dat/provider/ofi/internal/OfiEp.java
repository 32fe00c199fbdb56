// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatQos;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.ProviderHandle;
import java.net.InetAddress;

/**
 * An endpoint ({@code dat_ep_create}) over libfabric {@code FI_EP_MSG} endpoints: the handle and the state every job
 * reads; the work is split by job as in the verbs provider: {@link OfiEpData} (posts and completions),
 * {@link OfiEpConnection} (connect, accept, disconnect, reset, EQ events), {@link OfiEpControl} (query, modify,
 * status). Everything runs under the IA's lock.
 */
final class OfiEp extends AbstractEp<OfiIa> {

    final OfiPz pz;
    final OfiEvd recvEvd;
    final OfiEvd requestEvd;
    final OfiEvd connectEvd;
    /** The SRQ it receives from, or {@code null}. */
    final OfiSrq srq;
    /** Names the EP in its operation contexts. */
    final int key;

    /** Guarded by the IA's lock; written by {@link OfiEpConnection} (and an RSP's reservation). */
    DatEpState state = DatEpState.UNCONNECTED;

    final OfiEpData data;
    final OfiEpConnection connection;
    final OfiEpControl control;

    OfiEp(OfiIa ia, OfiPz pz, OfiEvd recvEvd, OfiEvd requestEvd, OfiEvd connectEvd, OfiSrq srq, DatEpAttr attr,
          int key) {
        super(ia, srq != null);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.key = key;
        this.data = new OfiEpData(this, attr);
        this.connection = new OfiEpConnection(this);
        this.control = new OfiEpControl(this);
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd || other == srq;
    }

    /** {@code dat_ep_free}, under the IA's lock: the connection ends without an event, the work is dropped. */
    @Override
    protected void destroy() {
        markClosed();
        connection.free();
        data.flush();
        owner().epsByKey.remove(key);
        if (srq != null) {
            srq.eps.remove(this);
        }
        data.close();
    }

    void requireState(String call, DatEpState wanted) {
        if (state != wanted) {
            throw DatArgs.epState(call, "ep_handle", state, wanted.toString());
        }
    }

    OfiEp ownEp(Object handle, String call, String arg) {
        return own(handle, OfiEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, arg);
    }

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
                             long length, int completionFlags) {
        return data.postRdmaWrite(numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long length, int completionFlags) {
        return data.postRdmaRead(numSegments, localIov, userCookie, rmrContext, targetAddress, length,
                completionFlags);
    }

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

    @Override
    public DatEpState state() {
        return control.state();
    }

    @Override
    public DatEpStatus getStatus() {
        return control.getStatus();
    }

    @Override
    public DatEpParam query() {
        return control.query();
    }

    @Override
    protected DatEpRecvInfo implRecvQuery(int which) {
        return control.recvQuery(which);
    }

    @Override
    protected void implModify(DatEpAttr newAttr) {
        control.modify(newAttr);
    }

    @Override
    public String toString() {
        return "OfiEp[" + key + ", " + state + (isClosed() ? ", closed]" : "]");
    }
}
