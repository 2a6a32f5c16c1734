package io.lockfabric.compare;

/**
 * A peer's server is missing or would not start: the message says which, and how to install it or
 * leave the peer out ({@code --peers}).
 */
public final class PeerUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** With the message that says what is missing. */
    public PeerUnavailableException(String message) {
        super(message);
    }

    /** With the message that says what is missing, and why. */
    public PeerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
