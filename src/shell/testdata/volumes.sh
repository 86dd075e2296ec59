# Static PersistentVolumes and claims as a kubeadm cluster has them (no StorageClass, no provisioner): binding, Pending claims, pods waiting for their claim, release and reclaim.
$ cat > pv.yaml <<EOF
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-small
  labels:
    size: small
spec:
  capacity:
    storage: 1024Mi
  accessModes:
  - ReadWriteOnce
  hostPath:
    path: /mnt/data/small
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-big
spec:
  capacity:
    storage: 5Gi
  accessModes:
  - ReadWriteOnce
  - ReadWriteMany
  persistentVolumeReclaimPolicy: Delete
  hostPath:
    path: /tmp/data/big
EOF
$ kubectl apply -f pv.yaml
$ kubectl get pv
$ kubectl get pv -o wide
$ cat > pod.yaml <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx
    volumeMounts:
    - name: data
      mountPath: /usr/share/nginx/html
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: data
EOF
$ kubectl apply -f pod.yaml
$ sleep 2
$ kubectl get pod web
$ kubectl describe pod web | tail -4
$ cat > pvc.yaml <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes:
  - ReadWriteOnce
  resources:
    requests:
      storage: 500Mi
EOF
$ kubectl apply -f pvc.yaml
$ sleep 10
$ kubectl get pvc,pv
$ kubectl get pod web
$ kubectl get pvc data -o yaml
$ kubectl describe pvc data
$ kubectl describe pv pv-small
$ cat > pvc2.yaml <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: huge
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 100Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: fast
spec:
  storageClassName: fast
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shared
spec:
  accessModes: [ReadWriteMany]
  resources:
    requests:
      storage: 1Gi
EOF
$ kubectl apply -f pvc2.yaml
$ sleep 46
$ kubectl get pvc
$ kubectl describe pvc huge | tail -3
$ kubectl describe pvc fast | tail -3
$ kubectl patch pvc data -p '{"spec":{"accessModes":["ReadWriteMany"]}}'
$ kubectl create -f - <<EOF
apiVersion: v1
kind: PersistentVolume
metadata:
  name: bad
spec:
  accessModes: [ReadWriteOnce]
EOF
$ kubectl create -f - <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bad
spec:
  accessModes: [ReadWriteOnce]
EOF
$ kubectl delete pod web
$ kubectl delete pvc data shared
$ sleep 2
$ kubectl get pv
$ kubectl describe pv pv-small | grep -e Status -e Claim
$ kubectl api-resources | grep -e NAME -e persistentvolume
