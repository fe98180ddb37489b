package perfetto
