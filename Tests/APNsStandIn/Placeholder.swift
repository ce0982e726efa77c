// Replaced by the stand-in itself when the apns branch lands.
enum APNsStandInPlaceholder {}
