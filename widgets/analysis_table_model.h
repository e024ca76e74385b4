#pragma once
// One row per matched layer of a numeric-suite report, in the report's (topological) order:
// name, op type, a precision checkbox and every per-layer figure. The checkbox is checked for a
// layer that runs fp32, partially checked for one the user kept in fp32 that still runs int8 (a
// weightless layer between int8 neighbours: see LayerReport::fp32Requested), and not checkable
// for a layer the quantized model itself runs in fp32 (nothing to toggle). Cells show text through
// display_format; SortRole gives the raw number (invalid for a missing figure, so it sorts lowest;
// +inf sorts highest). Toggling a checkbox does not change the report: it records the wish and
// emits precisionToggled for the re-quantization to act on.

#include <QAbstractTableModel>
#include <QIcon>
#include <QVector>

#include "analysis_report.h"

namespace ql::ui {

class AnalysisTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        NameColumn,
        OpTypeColumn,
        PrecisionColumn,
        WeightSqnrColumn,
        CumulativeSqnrColumn,
        IsolatedSqnrColumn,
        CosineColumn,
        RmseOverScaleColumn,
        SaturationColumn,
        SampleP5SqnrColumn,
        KernelSqnrColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // same value as LayerTableModel::SortRole (LayerProxyModel)
        LayerIndexRole,               // the layer's index in the report (int), for any column
        UnderThresholdRole,           // bool, on the cumulative and isolated SQNR cells
        KernelMismatchRole,           // bool, on the kernel-vs-reference cell
    };

    explicit AnalysisTableModel(QObject *parent = nullptr);

    void setReport(ReportPtr report);
    const ReportPtr &report() const { return m_report; }

    // Cumulative / isolated SQNR cells under this get a red tint (the chart's threshold line).
    void setThresholdDb(double thresholdDb);
    double thresholdDb() const { return m_thresholdDb; }

    // Whether the user keeps `layer` in fp32 (the report's fp32Requested until toggled here).
    bool isLayerFp32(int layer) const;
    // False for a layer the quantized model runs in fp32 without the user asking.
    bool isToggleable(int layer) const;
    Qt::CheckState checkState(int layer) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static bool isNumericColumn(int column);

signals:
    // The user (or setData) asked to run `layer` in fp32 (true) or int8 (false).
    void precisionToggled(int layer, bool fp32);

private:
    std::optional<double> figure(const analysis::LayerReport &layer, int column) const;
    QVariant displayData(int row, int column) const;
    QString toolTip(int row, int column) const;
    QString headerToolTip(int section) const;

    ReportPtr m_report;
    QVector<bool> m_fp32;  // per row: the user keeps the layer in fp32 (set here until a report)
    double m_thresholdDb = kDefaultThresholdDb;
    QIcon m_warningIcon;
};

}  // namespace ql::ui
