import Foundation

/// The page's own words (Wallet's, not the order's). ``tables`` has a table per language; a
/// language it doesn't have gets English, and so does a word a table lacks. Adding a language is
/// adding its table there.
enum Words {
    enum Key: String, CaseIterable {
        case order, orderNumber, ordered, updated, manageOrder, merchantWebsite, contact, email, phone
        case orderOpen, orderCompleted, orderCancelled
        case shipment, delivery, pickup, carrier, trackingNumber, trackShipment, shippedOn, expected, deliveredOn, shipTo, notes
        case placed, processing, shipped, onTheWay, outForDelivery, delivered, issue, cancelled
        case preparing, readyForPickup, pickedUp, pickupWindow, pickupCode, pickupAt, directions
        case item, items, quantity, payment, total, paidWith, transactions, purchase, refund, receipt
        case paymentPending, paymentAuthorized, paymentPaid, paymentRefunded, paymentDeclined, paymentVoided
        case returns, returnNumber, returnLabel, dropOffBy, returnStarted, returnCompleted, manageReturn
        case returnPolicy, returnBy, orderProvider, findings, noFindings, missingImage, barcode, languages
        case notReadable, addToWallet, openInSafari
    }

    /// The tables by language identifier: a page in `fr-CA` takes `fr`'s, one in `zh-Hant` or
    /// `zh-TW` takes `zh`'s (the only Chinese table, Simplified).
    static let tables: [String: [Key: String]] = [
        "en": english, "fr": french, "zh": chinese, "ja": japanese, "de": german, "es": spanish, "it": italian,
    ]

    /// The languages the page has words for, sorted.
    static var languages: [String] { tables.keys.sorted() }

    static func text(_ key: Key, language: String) -> String {
        table(for: language)[key] ?? english[key] ?? key.rawValue
    }

    /// The table of `language` (`fr-CA`, `fr_CA` and `FR` are French), else English's.
    static func table(for language: String) -> [Key: String] {
        let lowered = language.lowercased().replacingOccurrences(of: "_", with: "-")
        if let table = tables[lowered] { return table }
        let base = lowered.split(separator: "-").first.map(String.init) ?? lowered
        return tables[base] ?? english
    }

    /// Whether a noun is lowercased inside a phrase (`3 items`), as in English and French; not
    /// in German, whose nouns keep their capital (`3 Artikel`).
    static func lowercasesNouns(_ language: String) -> Bool {
        !language.lowercased().hasPrefix("de")
    }

    /// Whether the page has its own words in `language` (English included).
    static func has(_ language: String) -> Bool {
        let lowered = language.lowercased().replacingOccurrences(of: "_", with: "-")
        return tables[lowered] != nil || tables[lowered.split(separator: "-").first.map(String.init) ?? lowered] != nil
    }

    static let english: [Key: String] = [
        .order: "Order", .orderNumber: "Order number", .ordered: "Ordered", .updated: "Updated",
        .manageOrder: "Manage order", .merchantWebsite: "Website", .contact: "Contact", .email: "Email", .phone: "Phone",
        .orderOpen: "In progress", .orderCompleted: "Completed", .orderCancelled: "Cancelled",
        .shipment: "Shipment", .delivery: "Delivery", .pickup: "Pickup", .carrier: "Carrier",
        .trackingNumber: "Tracking number", .trackShipment: "Track shipment", .shippedOn: "Shipped",
        .expected: "Expected", .deliveredOn: "Delivered", .shipTo: "Ship to", .notes: "Notes",
        .placed: "Order placed", .processing: "Processing", .shipped: "Shipped", .onTheWay: "On the way",
        .outForDelivery: "Out for delivery", .delivered: "Delivered", .issue: "Issue", .cancelled: "Cancelled",
        .preparing: "Preparing", .readyForPickup: "Ready for pickup", .pickedUp: "Picked up",
        .pickupWindow: "Pickup window", .pickupCode: "Pickup code", .pickupAt: "Pick up at", .directions: "Directions",
        .item: "Item", .items: "Items", .quantity: "Qty", .payment: "Payment", .total: "Total", .paidWith: "Paid with",
        .transactions: "Transactions", .purchase: "Purchase", .refund: "Refund", .receipt: "Receipt",
        .paymentPending: "Pending", .paymentAuthorized: "Authorized", .paymentPaid: "Paid",
        .paymentRefunded: "Refunded", .paymentDeclined: "Declined", .paymentVoided: "Voided",
        .returns: "Returns", .returnNumber: "Return number", .returnLabel: "Return label", .dropOffBy: "Drop off by",
        .returnStarted: "Return started", .returnCompleted: "Return complete", .manageReturn: "Manage return",
        .returnPolicy: "Return policy", .returnBy: "Return by", .orderProvider: "Order info provided by",
        .findings: "Validation findings", .noFindings: "No findings", .missingImage: "Missing image",
        .barcode: "Barcode", .languages: "Languages", .notReadable: "order.json could not be read as an order", .addToWallet: "Add to Apple Wallet",
        .openInSafari: "To add this order to Apple Wallet, open this page in Safari.",
    ]

    static let french: [Key: String] = [
        .order: "Commande", .orderNumber: "Numéro de commande", .ordered: "Commandé le", .updated: "Mis à jour",
        .manageOrder: "Gérer la commande", .merchantWebsite: "Site web", .contact: "Contact", .email: "E-mail", .phone: "Téléphone",
        .orderOpen: "En cours", .orderCompleted: "Terminée", .orderCancelled: "Annulée",
        .shipment: "Expédition", .delivery: "Livraison", .pickup: "Retrait", .carrier: "Transporteur",
        .trackingNumber: "Numéro de suivi", .trackShipment: "Suivre le colis", .shippedOn: "Expédié",
        .expected: "Prévu", .deliveredOn: "Livré", .shipTo: "Livrer à", .notes: "Remarques",
        .placed: "Commande passée", .processing: "En préparation", .shipped: "Expédié", .onTheWay: "En route",
        .outForDelivery: "En cours de livraison", .delivered: "Livré", .issue: "Problème", .cancelled: "Annulé",
        .preparing: "En préparation", .readyForPickup: "Prêt à retirer", .pickedUp: "Retiré",
        .pickupWindow: "Créneau de retrait", .pickupCode: "Code de retrait", .pickupAt: "Retrait à", .directions: "Itinéraire",
        .item: "Article", .items: "Articles", .quantity: "Qté", .payment: "Paiement", .total: "Total", .paidWith: "Payé avec",
        .transactions: "Transactions", .purchase: "Achat", .refund: "Remboursement", .receipt: "Reçu",
        .paymentPending: "En attente", .paymentAuthorized: "Autorisé", .paymentPaid: "Payé",
        .paymentRefunded: "Remboursé", .paymentDeclined: "Refusé", .paymentVoided: "Annulé",
        .returns: "Retours", .returnNumber: "Numéro de retour", .returnLabel: "Étiquette de retour", .dropOffBy: "À déposer avant le",
        .returnStarted: "Retour lancé", .returnCompleted: "Retour terminé", .manageReturn: "Gérer le retour",
        .returnPolicy: "Politique de retour", .returnBy: "Retour possible jusqu’au", .orderProvider: "Informations fournies par",
        .findings: "Résultats de la validation", .noFindings: "Aucun problème", .missingImage: "Image manquante",
        .barcode: "Code-barres", .languages: "Langues", .notReadable: "order.json ne peut pas être lu comme une commande",
        .addToWallet: "Ajouter à Apple Wallet",
        .openInSafari: "Pour ajouter cette commande à Apple Wallet, ouvrez cette page dans Safari.",
    ]

    static let chinese: [Key: String] = [
        .order: "订单", .orderNumber: "订单号", .ordered: "下单时间", .updated: "更新时间",
        .manageOrder: "管理订单", .merchantWebsite: "网站", .contact: "联系", .email: "电子邮件", .phone: "电话",
        .orderOpen: "进行中", .orderCompleted: "已完成", .orderCancelled: "已取消",
        .shipment: "配送", .delivery: "送货", .pickup: "自提", .carrier: "承运商",
        .trackingNumber: "运单号", .trackShipment: "跟踪包裹", .shippedOn: "已发货",
        .expected: "预计送达", .deliveredOn: "已送达", .shipTo: "收货地址", .notes: "备注",
        .placed: "已下单", .processing: "处理中", .shipped: "已发货", .onTheWay: "运输中",
        .outForDelivery: "派送中", .delivered: "已送达", .issue: "问题", .cancelled: "已取消",
        .preparing: "备货中", .readyForPickup: "可取货", .pickedUp: "已取货",
        .pickupWindow: "取货时间", .pickupCode: "取货码", .pickupAt: "取货地点", .directions: "路线",
        .item: "件商品", .items: "件商品", .quantity: "数量", .payment: "付款", .total: "合计", .paidWith: "付款方式",
        .transactions: "交易", .purchase: "购买", .refund: "退款", .receipt: "收据",
        .paymentPending: "待处理", .paymentAuthorized: "已授权", .paymentPaid: "已付款",
        .paymentRefunded: "已退款", .paymentDeclined: "已拒绝", .paymentVoided: "已作废",
        .returns: "退货", .returnNumber: "退货编号", .returnLabel: "退货标签", .dropOffBy: "寄回截止",
        .returnStarted: "已申请退货", .returnCompleted: "退货完成", .manageReturn: "管理退货",
        .returnPolicy: "退货政策", .returnBy: "退货截止", .orderProvider: "订单信息提供方",
        .findings: "验证结果", .noFindings: "没有问题", .missingImage: "缺少图片",
        .barcode: "条码", .languages: "语言", .notReadable: "无法将 order.json 读取为订单", .addToWallet: "添加到 Apple 钱包",
        .openInSafari: "要将此订单添加到 Apple 钱包，请在 Safari 浏览器中打开此页面。",
    ]
}
