package nsys

import (
	"database/sql"

	"github.com/macroscope-hpc/macroscope/core/readers/sqlitedb"
)

// readNames loads what names the containers and the states: the string
// table, the host name, process and thread names, GPU names and NVTX
// domains. Every table is optional but StringIds.
func (r *reader) readNames() error {
	r.strs = map[int64]string{}
	var id sql.NullInt64
	var text sql.NullString
	err := r.db.Scan("StringIds", `SELECT id, value FROM StringIds`, []any{&id, &text}, func() error {
		if id.Valid {
			r.strs[id.Int64] = r.text.String(text.String)
			r.strBytes += int64(len(text.String)) + 64
		}
		return nil
	})
	if err != nil {
		return err
	}
	h := r.h
	const env = "TARGET_INFO_SYSTEM_ENV"
	if r.db.HasTable(env) && r.db.HasColumn(env, "globalVid") && r.db.HasColumn(env, "name") && r.db.HasColumn(env, "value") {
		err := r.db.Scan(env, `SELECT globalVid, value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'`, []any{&id, &text}, func() error {
			if id.Valid && text.String != "" {
				h.hostNames[hostOf(id.Int64)] = r.text.String(text.String)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if r.db.HasTable("PROCESSES") && r.db.HasColumn("PROCESSES", "globalPid") && r.db.HasColumn("PROCESSES", "name") {
		err := r.db.Scan("PROCESSES", `SELECT globalPid, name FROM PROCESSES`, []any{&id, &text}, func() error {
			if id.Valid {
				h.procNames[id.Int64&^idMask] = r.text.String(text.String)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if r.db.HasTable("ThreadNames") && r.db.HasColumn("ThreadNames", "globalTid") && r.db.HasColumn("ThreadNames", "nameId") {
		var name sql.NullInt64
		err := r.db.Scan("ThreadNames", `SELECT globalTid, nameId FROM ThreadNames`, []any{&id, &name}, func() error {
			if id.Valid {
				h.threadNames[id.Int64] = r.str(name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := r.readGPUNames(); err != nil {
		return err
	}
	return r.readNVTXNames()
}

// readGPUNames names the devices from TARGET_INFO_GPU (or, in the schemas
// that have it, TARGET_INFO_CUDA_GPU): its id is the deviceId of the
// activity tables (cuDevice is the ordinal the process saw).
func (r *reader) readGPUNames() error {
	for _, table := range []string{"TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"} {
		if !r.db.HasTable(table) || !r.db.HasColumn(table, "id") || !r.db.HasColumn(table, "name") {
			continue
		}
		var vm, id sql.NullInt64
		var name sql.NullString
		q := `SELECT ` + r.col(table, "vmId") + `, id, name FROM ` + sqlitedb.Ident(table)
		err := r.db.Scan(table, q, []any{&vm, &id, &name}, func() error {
			if !id.Valid {
				return nil
			}
			k := [2]int64{hostOf(vm.Int64), id.Int64}
			if _, ok := r.h.deviceNames[k]; !ok {
				r.h.deviceNames[k] = r.text.String(name.String)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// NVTX event types (ENUM_NSYS_EVENT_TYPE).
const (
	nvtxCategory       = 33
	nvtxMark           = 34
	nvtxThread         = 39
	nvtxPushPop        = 59
	nvtxStartEnd       = 60
	nvtxtCategory      = 64
	nvtxtMark          = 65
	nvtxtPushPop       = 70
	nvtxtStartEnd      = 71
	nvtxDomainCreate   = 75
	nvtxDomainDestroy  = 76
	nvtxNameCudaDevice = 97
)

// readNVTXNames reads the NVTX definitions that name things: domains
// (nvtxDomainCreate) and threads (nvtxNameOsThread).
func (r *reader) readNVTXNames() error {
	r.domains = map[[2]int64]string{}
	r.domainByID = map[int64]string{}
	const t = "NVTX_EVENTS"
	if !r.db.HasTable(t) || !r.db.HasColumn(t, "eventType") {
		return nil
	}
	var typ, gtid, domain, textID sql.NullInt64
	var text sql.NullString
	q := `SELECT eventType, ` + r.col(t, "globalTid") + `, ` + r.col(t, "domainId") + `, ` + r.col(t, "text") + `, ` +
		r.col(t, "textId") + ` FROM NVTX_EVENTS WHERE eventType IN (39, 75)`
	return r.db.Scan(t, q, []any{&typ, &gtid, &domain, &text, &textID}, func() error {
		name := r.text.String(text.String)
		if !text.Valid {
			name = r.str(textID)
		}
		switch typ.Int64 {
		case nvtxThread:
			if gtid.Valid && name != "" {
				r.h.nvtxNames[gtid.Int64] = name
			}
		case nvtxDomainCreate:
			if domain.Valid && name != "" {
				r.domains[[2]int64{gtid.Int64 &^ idMask, domain.Int64}] = name
				r.domainByID[domain.Int64] = name
			}
		}
		return nil
	})
}
