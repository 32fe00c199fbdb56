// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The live objects of one IA and the free protocol over them: {@code dat_*_free} refuses while another live object
 * uses the one to free; {@code dat_ia_close(ABRUPT)} destroys everything in dependency order; per-type counts
 * enforce the IA's object limits. Not thread safe: every call is made with the IA's lifecycle lock held.
 */
public final class HandleSet {

    private final String iaName;
    private final Set<ProviderHandle> objects = new LinkedHashSet<>();
    private final int[] live = new int[DatHandleType.values().length];
    /**
     * For each kind, the live objects that {@linkplain ProviderHandle#mayDependOn may depend on} an object of that
     * kind: the only ones a free of such an object asks, so a free costs O(its possible users), not O(all objects).
     */
    private final List<Set<ProviderHandle>> usersOf = new ArrayList<>();

    /**
     * Creates the empty set of one IA's objects.
     *
     * @param iaName the IA's name, for messages
     */
    public HandleSet(String iaName) {
        this.iaName = iaName;
        for (int i = 0; i < DatHandleType.values().length; i++) {
            usersOf.add(new LinkedHashSet<>());
        }
    }

    /**
     * Adds a new object, after {@link #requireRoom}.
     *
     * @param <T> the object's class
     * @param h the object
     * @return {@code h}
     */
    public <T extends ProviderHandle> T register(T h) {
        if (objects.add(h)) {
            live[h.handleType().ordinal()]++;
            for (DatHandleType kind : DatHandleType.values()) {
                if (h.mayDependOn(kind)) {
                    usersOf.get(kind.ordinal()).add(h);
                }
            }
        }
        return h;
    }

    /**
     * Refuses a new object of {@code type} when the IA already has its limit of them.
     *
     * @param type the kind of object about to be created
     * @param max the IA's limit for it
     * @param call the DAT call, for the message
     * @param limit the attribute's name, for the message
     * @throws DatException {@code DAT_INSUFFICIENT_RESOURCES} when the IA already has {@code max}
     */
    public void requireRoom(DatHandleType type, int max, String call, String limit) {
        if (live[type.ordinal()] >= max) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY,
                    call + ": IA " + iaName + " already has " + max + " " + type + "s (" + limit + ")");
        }
    }

    /**
     * {@code dat_*_free} of a child: refuses while another live object uses it, else destroys and forgets it.
     *
     * @param h the object to free
     */
    public void free(ProviderHandle h) {
        if (h.isClosed()) {
            return;
        }
        List<ProviderHandle> users = new ArrayList<>();
        for (ProviderHandle o : usersOf.get(h.handleType().ordinal())) {
            if (o != h && !o.isClosed() && o.dependsOn(h)) {
                users.add(o);
            }
        }
        if (!users.isEmpty()) {
            throw new DatException(DatReturn.INVALID_STATE, h.inUseSubtype(), h.freeCall() + ": the "
                    + h.handleType() + " is still used by " + describe(users));
        }
        h.checkFree();
        h.destroy();
        // destroy() should have marked it closed before releasing anything; a provider that forgot must still not
        // leave a freed object answering calls as if it were alive.
        h.markClosed();
        forget(h);
    }

    /**
     * {@return whether a live object other than {@code h} uses it} The question {@link #free} asks, without freeing.
     *
     * @param h an object of this set
     */
    public boolean isUsed(ProviderHandle h) {
        for (ProviderHandle o : usersOf.get(h.handleType().ordinal())) {
            if (o != h && !o.isClosed() && o.dependsOn(h)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops an object destroyed outside {@link #free}.
     *
     * @param h the object
     */
    public void forget(ProviderHandle h) {
        if (objects.remove(h)) {
            live[h.handleType().ordinal()]--;
            for (Set<ProviderHandle> users : usersOf) {
                users.remove(h);
            }
        }
    }

    /**
     * {@code dat_ia_close(GRACEFUL)}: refuses while objects live.
     *
     * @throws DatException {@code DAT_INVALID_STATE} naming how many of each kind are alive
     */
    public void requireEmptyForGracefulClose() {
        if (!objects.isEmpty()) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                    "dat_ia_close: graceful close of IA " + iaName + " while " + describe(objects)
                            + " still alive; free them or close with ABRUPT");
        }
    }

    /**
     * {@code dat_ia_close(ABRUPT)}: destroys every live object, kind by kind in {@code order} (EPs before EVDs,
     * so their flushes reach EVDs that still exist), and forgets them all.
     *
     * @param order the kinds, first destroyed first
     */
    public void destroyAll(DatHandleType... order) {
        for (DatHandleType type : order) {
            for (ProviderHandle h : new ArrayList<>(objects)) {
                if (h.handleType() == type && !h.isClosed()) {
                    h.destroy();
                    h.markClosed();
                }
            }
        }
        objects.clear();
        usersOf.forEach(Set::clear);
        Arrays.fill(live, 0);
    }

    private static String describe(Iterable<ProviderHandle> handles) {
        int[] counts = new int[DatHandleType.values().length];
        for (ProviderHandle h : handles) {
            counts[h.handleType().ordinal()]++;
        }
        StringBuilder sb = new StringBuilder();
        for (DatHandleType t : DatHandleType.values()) {
            if (counts[t.ordinal()] > 0) {
                sb.append(sb.isEmpty() ? "" : ", ").append(counts[t.ordinal()]).append(' ').append(t);
            }
        }
        return sb.toString();
    }
}
